// Usage and analytics (`#/analytics`): a period's totals, daily charts of
// turns, tokens and cost, and tables per agent and per model.

import { get } from "./api";
import { count, h, labelled, select, table } from "./dom";
import type { ViewContext } from "./main";
import { barChart } from "./svg";

interface Day {
  day: string;
  total_turns: number;
  input_tokens: number;
  output_tokens: number;
  errors: number;
  estimated_cost_usd: number | null;
}

interface Analytics {
  summary: Record<string, number | null>;
  daily: Day[];
  by_agent: { name: string; agent_id: string; total_turns: number; input_tokens: number; output_tokens: number; estimated_cost_usd: number | null }[];
  by_model: { model: string; total_turns: number; input_tokens: number; output_tokens: number; estimated_cost_usd: number | null }[];
}

const usd = (v: number | null): string => (v === null ? "—" : `$${v.toFixed(4)}`);

/** `#/analytics`. */
export async function analyticsView({ main }: ViewContext): Promise<void> {
  const period = select("period", [["7d", "7 days"], ["30d", "30 days"], ["90d", "90 days"]], "30d");
  const body = h("div", {});
  const load = async (): Promise<void> => {
    const data = await get<Analytics>(`/api/analytics?period=${period.value}`);
    const s = data.summary;
    const facts: [string, string][] = [
      ["Turns", count(s.total_turns)],
      ["Threads", count(s.total_threads)],
      ["Users", count(s.unique_users)],
      ["Tokens in", count(s.input_tokens)],
      ["Tokens out", count(s.output_tokens)],
      ["Errors", count(s.errors)],
      ["Cost", usd(s.estimated_cost_usd ?? null)],
      ["p50 response", s.p50_response_time_ms === null ? "—" : `${count(s.p50_response_time_ms)} ms`],
    ];
    body.replaceChildren(
      h("dl", { class: "facts" }, ...facts.map(([name, value]) => h("div", {}, h("dt", {}, name), h("dd", {}, value)))),
      barChart("Turns per day", data.daily.map((d) => [d.day, d.total_turns]), (v) => count(v)),
      barChart("Tokens per day", data.daily.map((d) => [d.day, d.input_tokens + d.output_tokens]), (v) => count(v)),
      barChart("Cost per day", data.daily.map((d) => [d.day, d.estimated_cost_usd ?? 0]), (v) => usd(v)),
      table(
        "Per agent",
        ["Agent", "Turns", "Tokens in", "Tokens out", "Cost"],
        data.by_agent.map((a) => [a.name || a.agent_id, count(a.total_turns), count(a.input_tokens), count(a.output_tokens), usd(a.estimated_cost_usd)]),
      ),
      table(
        "Per model",
        ["Model", "Turns", "Tokens in", "Tokens out", "Cost"],
        data.by_model.map((m) => [m.model, count(m.total_turns), count(m.input_tokens), count(m.output_tokens), usd(m.estimated_cost_usd)]),
      ),
    );
  };
  period.addEventListener("change", () => void load());
  main.replaceChildren(h("h2", {}, "Analytics"), h("div", { class: "filters" }, labelled("Period", period)), body);
  await load();
}
