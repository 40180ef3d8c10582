// An agent's publish and multiplayer panels (publishing.md "Publications",
// "Multiplayer"): publish, edit, pause or resume, end every visitor
// session, unpublish; the chat's link and embed snippet; today's tokens.

import type { Agent } from "./agents";
import { explain, get, request, send } from "./api";
import { button, count, form, h, input, labelled, select, when } from "./dom";
import type { ViewContext } from "./main";

interface Publication {
  slug: string;
  title: string;
  description: string;
  greeting: string | null;
  theme_color: string;
  persistence: string;
  mode: string;
  identity: string;
  status: string;
  public_tools: string[];
  url: string;
  embed_snippet: string;
  identity_secret?: string;
  usage_today: { tokens: number; reserved: number; budget: number | null; resets_at: string };
}

interface Multiplayer {
  max_participants: number;
  who_can_invite: string;
  display_names: string;
}

const text = (values: FormData, name: string): string => String(values.get(name) ?? "").trim();

function fields(p: Partial<Publication>): Node[] {
  const greeting = h("textarea", { name: "greeting", rows: "2" });
  greeting.value = p.greeting ?? "";
  return [
    labelled("Title", input("title", p.title ?? "")),
    labelled("Description", input("description", p.description ?? "")),
    labelled("Greeting", greeting),
    labelled("Theme colour", input("themeColor", p.theme_color ?? "#2563eb", "color")),
    labelled("Mode", select("mode", [["single", "One visitor per chat"], ["multiplayer", "Multiplayer"]], p.mode ?? "single")),
    labelled(
      "Keep visitors' chats",
      select("persistence", [["local", "In the browser"], ["session", "For the tab"], ["none", "Not at all"]], p.persistence ?? "local"),
    ),
    labelled("Tools visitors may use", input("publicTools", (p.public_tools ?? []).join(", ")), "Comma-separated tool names."),
  ];
}

function body(values: FormData): Record<string, unknown> {
  const out: Record<string, unknown> = {
    description: text(values, "description"),
    greeting: text(values, "greeting") || null,
    themeColor: text(values, "themeColor"),
    mode: text(values, "mode"),
    persistence: text(values, "persistence"),
    publicTools: text(values, "publicTools")
      .split(",")
      .map((name) => name.trim())
      .filter(Boolean),
  };
  if (text(values, "title")) out.title = text(values, "title");
  return out;
}

/** The publish panel of `agent`. */
export async function publishPanel({ say }: ViewContext, agent: Agent): Promise<HTMLElement> {
  const path = `/api/agents/${agent.id}/publish`;
  const panel = h("section", { "aria-labelledby": "publish-heading" });
  const draw = (p: Publication | null, note = ""): void => {
    panel.replaceChildren(h("h3", { id: "publish-heading" }, "Public chat"));
    if (note) panel.append(h("p", { role: "alert" }, note));
    const act = (change: Promise<unknown>, done: string): void => {
      void change
        .then(() => get<Publication>(path))
        .then((fresh) => {
          draw(fresh);
          say(done);
        })
        .catch((error: unknown) => (error instanceof Error && /not published/.test(error.message) ? draw(null) : say(explain(error))));
    };
    if (!p) {
      panel.append(
        h("p", {}, "Not published."),
        form("Publish", [labelled("Slug", input("slug"), "Empty: made from the agent's name."), ...fields({ title: agent.name })], "Publish", (values) => {
          const fresh = body(values);
          if (text(values, "slug")) fresh.slug = text(values, "slug");
          void send<Publication>("POST", path, fresh)
            .then((made) => {
              draw(made);
              say("Published.");
            })
            .catch((error: unknown) => say(explain(error)));
        }),
      );
      return;
    }
    const usage = p.usage_today;
    panel.append(
      h("p", {}, `Status: ${p.status}. `, h("a", { href: p.url, target: "_blank", rel: "noopener" }, p.url)),
      h("p", {}, `Tokens today: ${count(usage.tokens)} of ${usage.budget === null ? "no budget" : count(usage.budget)} (${count(usage.reserved)} reserved; resets ${when(usage.resets_at)}).`),
      labelled("Embed snippet", Object.assign(h("textarea", { readonly: true, rows: "2" }), { value: p.embed_snippet })),
      h(
        "div",
        { class: "actions" },
        p.status === "active"
          ? button("Pause", () => act(send("PATCH", path, { status: "paused" }), "Paused."))
          : button("Resume", () => act(send("PATCH", path, { status: "active" }), "Resumed.")),
        button("Preview", () => {
          panel.querySelector(".preview")?.remove();
          panel.append(h("iframe", { class: "preview", src: `/c/${p.slug}?embed=1`, title: `Preview of ${p.title}` }));
        }),
        button("End visitor sessions", () => act(send("PATCH", path, { revokeSessions: true }), "Every visitor session ended.")),
        button("Unpublish", () => {
          if (confirm("Unpublish? The link stops working; the chats stay readable here.")) {
            void request(path, { method: "DELETE" })
              .then(() => draw(null, "Unpublished."))
              .catch((error: unknown) => say(explain(error)));
          }
        }),
      ),
      form("Public chat settings", fields(p), "Save chat", (values) => act(send("PATCH", path, body(values)), "Saved.")),
    );
  };
  const found = await request(path, {}, [404]);
  draw(found.status === 404 ? null : ((await found.json()) as Publication));
  return panel;
}

/** The multiplayer panel of `agent`. */
export async function multiplayerPanel({ say }: ViewContext, agent: Agent): Promise<HTMLElement> {
  const path = `/api/agents/${agent.id}/multiplayer`;
  const config = await get<Multiplayer>(path);
  const max = input("maxParticipants", String(config.max_participants), "number");
  max.min = "2";
  max.max = "100";
  return h(
    "section",
    { "aria-labelledby": "multiplayer-heading" },
    h("h3", { id: "multiplayer-heading" }, "Multiplayer"),
    form(
      "Multiplayer settings",
      [
        labelled("Most participants", max),
        labelled("Who may invite", select("whoCanInvite", [["participants", "Any participant"], ["owner", "The owner"]], config.who_can_invite)),
        labelled("Display names", select("displayNames", [["chosen", "Chosen by each person"], ["generated", "Generated"]], config.display_names)),
      ],
      "Save multiplayer",
      (values) => {
        void send("PUT", path, {
          maxParticipants: Number(values.get("maxParticipants")),
          whoCanInvite: text(values, "whoCanInvite"),
          displayNames: text(values, "displayNames"),
        })
          .then(() => say("Multiplayer settings saved."))
          .catch((error: unknown) => say(explain(error)));
      },
    ),
  );
}
