// Tools and MCP servers (`#/tools`): the org's webhook tools and its MCP
// servers with their status, last error and listed tools; "Test" lists a
// server's tools now.

import { explain, get, send } from "./api";
import { button, h, table, when } from "./dom";
import type { ViewContext } from "./main";

interface Tool {
  id: string;
  name: string;
  description: string;
  url?: string;
  timeout_ms?: number;
}

interface Mcp {
  id: string;
  name: string;
  slug: string;
  transport: string;
  url: string | null;
  status: string;
  last_error: string | null;
  tools_cache: { name: string }[];
  tools_refreshed_at: string | null;
}

/** `#/tools`. */
export async function toolsView(context: ViewContext): Promise<void> {
  const { main, say } = context;
  const [{ tools }, { mcps }] = await Promise.all([
    get<{ tools: Tool[] }>("/api/tools"),
    get<{ mcps: Mcp[] }>("/api/mcps"),
  ]);
  const toolTable = tools.length
    ? table(
        "Webhook tools",
        ["Name", "Description", "URL", "Timeout"],
        tools.map((t) => [t.name, t.description || "—", t.url ?? "—", t.timeout_ms ? `${t.timeout_ms} ms` : "—"]),
      )
    : h("p", {}, "No webhook tool.");
  const mcpTable = mcps.length
    ? table(
        "MCP servers",
        ["Name", "Transport", "Status", "Tools", "Listed", ""],
        mcps.map((m) => [
          m.name,
          m.transport,
          h("span", { class: `badge ${m.status}` }, m.status, m.last_error ? ` (${m.last_error})` : ""),
          m.tools_cache.map((t) => t.name).join(", ") || "—",
          when(m.tools_refreshed_at),
          button(`Test ${m.name}`, () => {
            say(`Testing ${m.name}…`);
            void send<{ ok: boolean; error?: string }>("POST", `/api/mcps/${m.id}/test`, {})
              .then((result) => {
                say(result.ok ? `${m.name} answers.` : `${m.name}: ${result.error ?? "down"}`);
                return toolsView(context);
              })
              .catch((error: unknown) => say(explain(error)));
          }),
        ]),
      )
    : h("p", {}, "No MCP server.");
  main.replaceChildren(h("h2", {}, "Tools"), h("h3", {}, "Webhook tools"), toolTable, h("h3", {}, "MCP servers"), mcpTable);
}
