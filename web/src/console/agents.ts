// Agents: the list and the create form (`#/agents`), and one agent
// (`#/agents/{id}`): its settings, its threads (a new one opens the chat),
// and the publish and multiplayer panels.

import { explain, get, request, send } from "./api";
import { button, form, h, input, labelled, route, table, when } from "./dom";
import type { ViewContext } from "./main";
import { multiplayerPanel, publishPanel } from "./publish";

/** An agent as the API answers it. */
export interface Agent {
  id: string;
  name: string;
  description: string;
  default_model: string;
  stable_preamble: string;
  created_at: string;
  published_chats: { slug: string; url: string; status: string }[];
}

interface Thread {
  id: string;
  title: string | null;
  created_at: string;
}

function text(values: FormData, name: string): string {
  return String(values.get(name) ?? "").trim();
}

/** `#/agents`. */
export async function agentsView({ main, say }: ViewContext): Promise<void> {
  const agents = await get<Agent[]>("/api/agents");
  const rows = agents.map((agent) => [
    route(agent.name, `#/agents/${agent.id}`),
    agent.default_model,
    agent.published_chats[0]?.slug ?? "—",
    when(agent.created_at),
  ]);
  const create = form(
    "Create an agent",
    [
      labelled("Name", Object.assign(input("name"), { required: true, maxLength: 200 })),
      labelled("Model", input("model"), "Empty: the service's default model (builtin/echo without a vendor key)."),
      labelled("Description", input("description")),
    ],
    "Create agent",
    (values) => {
      const body: Record<string, string> = { name: text(values, "name") };
      if (text(values, "model")) body.defaultModel = text(values, "model");
      if (text(values, "description")) body.description = text(values, "description");
      void send<Agent>("POST", "/api/agents", body)
        .then((agent) => {
          location.hash = `#/agents/${agent.id}`;
        })
        .catch((error: unknown) => say(explain(error)));
    },
  );
  main.replaceChildren(
    h("h2", {}, "Agents"),
    agents.length ? table("Agents of the organization", ["Name", "Model", "Published", "Created"], rows) : h("p", {}, "No agent yet."),
    h("h3", {}, "New agent"),
    create,
  );
}

/** `#/agents/{id}`. */
export async function agentView(context: ViewContext): Promise<void> {
  const { main, params, say } = context;
  const id = params[0] ?? "";
  const agent = await get<Agent>(`/api/agents/${id}`);
  const preamble = h("textarea", { name: "preamble", rows: "4" });
  preamble.value = agent.stable_preamble;
  const settings = form(
    "Agent settings",
    [
      labelled("Name", Object.assign(input("name", agent.name), { required: true })),
      labelled("Model", input("model", agent.default_model)),
      labelled("Description", input("description", agent.description)),
      labelled("System prompt", preamble),
    ],
    "Save",
    (values) => {
      void send<Agent>("PATCH", `/api/agents/${id}`, {
        name: text(values, "name"),
        defaultModel: text(values, "model"),
        description: text(values, "description"),
        stablePreamble: String(values.get("preamble") ?? ""),
      })
        .then((saved) => {
          heading.textContent = saved.name;
          say("Saved.");
        })
        .catch((error: unknown) => say(explain(error)));
    },
  );
  const heading = h("h2", {}, agent.name);
  const threads = h("section", { "aria-labelledby": "threads-heading" }, h("h3", { id: "threads-heading" }, "Threads"));
  const newThread = button("New thread", () => {
    void send<Thread>("POST", "/api/threads", { agentId: id })
      .then((thread) => {
        location.hash = `#/threads/${thread.id}`;
      })
      .catch((error: unknown) => say(explain(error)));
  });
  threads.append(newThread);
  const page = await get<{ threads: Thread[] }>(`/api/threads?agentId=${id}&limit=50`);
  threads.append(
    page.threads.length
      ? table(
          "Newest threads",
          ["Thread", "Created"],
          page.threads.map((t) => [route(t.title ?? t.id.slice(0, 8), `#/threads/${t.id}`), when(t.created_at)]),
        )
      : h("p", {}, "No thread yet."),
  );
  const remove = button("Delete agent", () => {
    if (!confirm(`Delete ${agent.name}? Its threads stay readable.`)) return;
    void request(`/api/agents/${id}`, { method: "DELETE" })
      .then(() => {
        location.hash = "#/agents";
      })
      .catch((error: unknown) => say(explain(error)));
  });
  main.replaceChildren(
    route("← Agents", "#/agents"),
    heading,
    h("section", { "aria-label": "Settings" }, settings, remove),
    threads,
    await publishPanel(context, agent),
    await multiplayerPanel(context, agent),
  );
}
