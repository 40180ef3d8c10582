// Logs and traces (`#/logs`, `#/logs/{id}`): the turns' traces, newest
// first, filtered by status, agent and text, paged by cursor; one trace's
// spans as a waterfall and a table.

import { get } from "./api";
import { button, count, form, h, input, labelled, route, select, table, when } from "./dom";
import type { ViewContext } from "./main";
import { waterfall } from "./svg";

interface Trace {
  id: string;
  agent_id: string;
  thread_id: string;
  status: string;
  started_at: string;
  duration_ms: number | null;
  ttft_ms: number | null;
  model: string | null;
  total_input_tokens: number;
  total_output_tokens: number;
  estimated_cost_usd: number | null;
  error_code: string | null;
}

interface Span {
  id: string;
  kind: string;
  name: string;
  status: string;
  started_at: string;
  duration_ms: number | null;
  error: string | null;
}

/** `#/logs`. */
export async function logsView({ main }: ViewContext): Promise<void> {
  const filters = new URLSearchParams();
  const results = h("div", {});
  let cursor: string | null = null;
  const more = button("Older traces", () => void load(false));
  const load = async (fresh: boolean): Promise<void> => {
    const query = new URLSearchParams(filters);
    query.set("limit", "50");
    if (!fresh && cursor) query.set("cursor", cursor);
    const page = await get<{ traces: Trace[]; nextCursor: string | null }>(`/api/logs?${query.toString()}`);
    cursor = page.nextCursor;
    const rows = page.traces.map((t) => [
      route(when(t.started_at), `#/logs/${t.id}`),
      h("span", { class: `badge ${t.status}` }, t.status),
      t.model ?? "—",
      t.duration_ms === null ? "—" : `${count(t.duration_ms)} ms`,
      `${count(t.total_input_tokens)} / ${count(t.total_output_tokens)}`,
      t.error_code ?? "",
    ]);
    const shown = table("Traces, newest first", ["Started", "Status", "Model", "Duration", "Tokens in / out", "Error"], rows);
    if (fresh) results.replaceChildren(shown);
    else results.append(shown);
    more.hidden = cursor === null;
  };
  const filter = form(
    "Filter traces",
    [
      labelled("Status", select("status", [["", "Any"], ["running", "Running"], ["ok", "OK"], ["error", "Error"], ["stopped", "Stopped"]], "")),
      labelled("Agent id", input("agentId")),
      labelled("Model or error code contains", input("q")),
    ],
    "Filter",
    (values) => {
      for (const name of ["status", "agentId", "q"]) {
        const value = String(values.get(name) ?? "").trim();
        if (value) filters.set(name, value);
        else filters.delete(name);
      }
      void load(true);
    },
  );
  main.replaceChildren(h("h2", {}, "Logs"), filter, results, more);
  await load(true);
}

/** `#/logs/{id}`. */
export async function logView({ main, params }: ViewContext): Promise<void> {
  const { trace, spans } = await get<{ trace: Trace; spans: Span[] }>(`/api/logs/${params[0] ?? ""}`);
  const start = Date.parse(trace.started_at);
  const whole = Math.max(1, trace.duration_ms ?? Math.max(...spans.map((s) => Date.parse(s.started_at) - start + (s.duration_ms ?? 0)), 1));
  const lanes = spans.map((s) => ({
    label: `${s.kind} ${s.name}`,
    start: Math.min(1, Math.max(0, (Date.parse(s.started_at) - start) / whole)),
    length: Math.min(1, (s.duration_ms ?? 0) / whole),
    error: s.status === "error",
    tooltip: `${s.kind} ${s.name}: ${count(s.duration_ms, 3)} ms${s.error ? ` (${s.error})` : ""}`,
  }));
  main.replaceChildren(
    route("← Logs", "#/logs"),
    h("h2", {}, `Trace ${trace.id.slice(0, 8)}`),
    h(
      "p",
      {},
      `${trace.status} · ${trace.model ?? "no model"} · ${count(trace.duration_ms, 1)} ms · first token ${count(trace.ttft_ms, 1)} ms · `,
      route("thread", `#/threads/${trace.thread_id}`),
    ),
    spans.length ? waterfall(`Spans of trace ${trace.id}`, lanes) : h("p", {}, "No span yet (the turn is running)."),
    table(
      "Spans",
      ["Kind", "Name", "Status", "Start (ms)", "Duration (ms)", "Error"],
      spans.map((s) => [s.kind, s.name, s.status, count(Date.parse(s.started_at) - start), count(s.duration_ms, 3), s.error ?? ""]),
    ),
  );
}
