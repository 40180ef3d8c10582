// The operator console (publishing.md "Console"): sign in with an API key,
// then hash routes `#/agents`, `#/agents/{id}`, `#/threads/{id}`, `#/tools`,
// `#/logs`, `#/logs/{id}`, `#/analytics`, `#/settings`. Each view renders
// into `main` and gets an AbortSignal that fires when the route changes, so
// a left chat's streams close.

import { agentView, agentsView } from "./agents";
import { analyticsView } from "./analytics";
import { apiKey, explain, get, signIn, signOut } from "./api";
import { form, h, input, labelled } from "./dom";
import { logView, logsView } from "./logs";
import { settingsView } from "./settings";
import { threadView } from "./thread";
import { toolsView } from "./tools";

/** What a view gets: where to draw, the route's parameters, when to stop. */
export interface ViewContext {
  main: HTMLElement;
  params: string[];
  signal: AbortSignal;
  say: (text: string) => void;
}

type View = (context: ViewContext) => Promise<void>;

const ROUTES: [RegExp, View, string][] = [
  [/^#\/agents\/([0-9a-f-]{36})$/, agentView, "Agent"],
  [/^#\/agents$/, agentsView, "Agents"],
  [/^#\/threads\/([0-9a-f-]{36})$/, threadView, "Thread"],
  [/^#\/tools$/, toolsView, "Tools"],
  [/^#\/logs\/([0-9a-f-]{36})$/, logView, "Trace"],
  [/^#\/logs$/, logsView, "Logs"],
  [/^#\/analytics$/, analyticsView, "Analytics"],
  [/^#\/settings$/, settingsView, "Settings"],
];

const main = document.querySelector<HTMLElement>("main");
const statusRegion = document.querySelector<HTMLElement>(".status");
const nav = document.querySelector<HTMLElement>("nav.sections");
const signOutButton = document.querySelector<HTMLButtonElement>(".sign-out");
let current: AbortController | null = null;

function say(text: string): void {
  if (statusRegion) statusRegion.textContent = text;
}

function showSignIn(main: HTMLElement, note = ""): void {
  if (nav) nav.hidden = true;
  if (signOutButton) signOutButton.hidden = true;
  document.title = "Sign in · Confer console";
  const key = input("key", "", "password");
  key.autocomplete = "off";
  key.required = true;
  main.replaceChildren(
    h("h2", {}, "Sign in"),
    h("p", {}, "Paste an API key. It is kept in this tab only and forgotten when the tab closes."),
    form("Sign in", [labelled("API key", key)], "Sign in", (values) => {
      signIn(String(values.get("key") ?? "").trim());
      void get("/api/agents")
        .then(() => {
          if (location.hash === "" || location.hash === "#/") location.hash = "#/agents";
          else void showRoute();
        })
        .catch((error: unknown) => {
          // A key that did not work is not kept, whatever the refusal.
          if (apiKey()) signOut();
          showSignIn(main, `Not signed in: ${explain(error)}`);
        });
    }),
  );
  say(note);
  key.focus();
}

async function showRoute(): Promise<void> {
  if (!main) return;
  current?.abort();
  current = new AbortController();
  if (!apiKey()) {
    showSignIn(main);
    return;
  }
  if (nav) nav.hidden = false;
  if (signOutButton) signOutButton.hidden = false;
  const found = ROUTES.map(([pattern, view, title]) => [pattern.exec(location.hash), view, title] as const).find(
    ([match]) => match,
  );
  if (!found) {
    location.hash = "#/agents";
    return;
  }
  const [match, view, title] = found;
  document.title = `${title} · Confer console`;
  for (const link of nav?.querySelectorAll("a") ?? []) {
    const here = location.hash.startsWith(link.getAttribute("href") ?? "-");
    if (here) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  main.replaceChildren(h("p", {}, "Loading…"));
  say("");
  try {
    await view({ main, params: match?.slice(1) ?? [], signal: current.signal, say });
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") return;
    if (!apiKey()) return;
    main.replaceChildren(h("p", { class: "error" }, explain(error)));
  }
}

window.addEventListener("hashchange", () => void showRoute());
window.addEventListener("confer:signed-out", () => {
  current?.abort();
  if (main) showSignIn(main, "Signed out.");
});
signOutButton?.addEventListener("click", signOut);
void showRoute();
