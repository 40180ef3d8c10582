// A thread's live chat (`#/threads/{id}`): its history, a streaming send
// (Enter sends, Shift+Enter is a new line, Escape or "Stop" stops), and a
// `follow=true` watch that shows the turns other clients start. Every
// message, whoever wrote it, goes through the Markdown renderer.

import { LiveAnswer } from "../shared/live";
import { render } from "../shared/markdown";
import { readEvents, type StreamEvent } from "../shared/sse";
import { explain, get, request } from "./api";
import { h, route } from "./dom";
import type { ViewContext } from "./main";

interface Message {
  role: string;
  content: string;
  sender_name: string | null;
}

interface Thread {
  id: string;
  agent_id: string;
  title: string | null;
}

/** `#/threads/{id}`. */
export async function threadView({ main, params, signal, say }: ViewContext): Promise<void> {
  const id = params[0] ?? "";
  const thread = await get<Thread>(`/api/threads/${id}`);
  let page = await get<{ messages: Message[]; total: number }>(`/api/threads/${id}/messages?limit=200`);
  if (page.total > 200) page = await get(`/api/threads/${id}/messages?limit=200&offset=${page.total - 200}`);

  const transcript = h("div", { class: "transcript", role: "log", "aria-live": "polite", "aria-label": "Conversation" });
  const message = h("textarea", { id: "message", rows: "3", placeholder: "Write a message…" });
  const sendButton = h("button", { type: "submit", class: "send" }, "Send");
  const stopButton = h("button", { type: "button", class: "stop", hidden: true }, "Stop");
  const composer = h(
    "form",
    { class: "composer", "aria-label": "Send a message" },
    h("label", { for: "message", class: "visually-hidden" }, "Message"),
    message,
    sendButton,
    stopButton,
  );
  let running: AbortController | null = null;

  const bubble = (role: string, sender: string | null): HTMLDivElement => {
    const node = h("div", { class: `message ${role}` }, sender ? h("div", { class: "sender" }, sender) : null, h("div", { class: "body" }));
    transcript.append(node);
    node.scrollIntoView({ block: "end" });
    return node;
  };
  const show = (role: string, content: string, sender: string | null): void => {
    bubble(role, sender).querySelector(".body")?.replaceChildren(render(content));
  };
  const answer = (): LiveAnswer => new LiveAnswer(bubble("assistant", null), (node) => node.scrollIntoView({ block: "end" }));

  /** Applies one event of a turn to `live`; true at `done`. */
  const apply = (event: StreamEvent, live: LiveAnswer): boolean => {
    const data = (event.data ?? {}) as Record<string, unknown>;
    switch (event.event) {
      case "token":
        live.add(String(data.delta ?? ""));
        return false;
      case "queued":
        say(`Queued (position ${String(data.position)}).`);
        return false;
      case "tool_call": {
        const tool = data.tool as { name?: string } | undefined;
        say(`Calling ${tool?.name ?? "a tool"}…`);
        return false;
      }
      case "error":
        say(`${String(data.code)}: ${String(data.detail ?? "")}`);
        return false;
      case "done": {
        live.finish(typeof data.content === "string" ? data.content : null);
        const usage = data.usage as { inputTokens?: number; outputTokens?: number; model?: string } | undefined;
        if (data.stopped) say("Stopped.");
        else if (usage) say(`Done: ${usage.model ?? ""}, ${usage.inputTokens ?? 0} in, ${usage.outputTokens ?? 0} out.`);
        return true;
      }
      default:
        return false;
    }
  };

  const busy = (on: boolean): void => {
    sendButton.hidden = on;
    stopButton.hidden = !on;
  };

  const sendMessage = async (): Promise<void> => {
    const content = message.value.trim();
    if (!content || running) return;
    message.value = "";
    show("user", content, null);
    running = new AbortController();
    busy(true);
    say("Answering… (Escape stops)");
    try {
      const response = await request(`/api/threads/${id}/messages`, {
        method: "POST",
        body: JSON.stringify({ content }),
        signal: running.signal,
      });
      const live = answer();
      let ended = false;
      await readEvents(response, (event) => {
        ended = apply(event, live) || ended;
      });
      if (!ended) live.finish(null);
    } catch (error) {
      if (!(error instanceof DOMException && error.name === "AbortError")) say(explain(error));
    } finally {
      running = null;
      busy(false);
    }
  };

  const stop = (): void => {
    if (!running) return;
    void request(`/api/threads/${id}/stop`, { method: "POST", body: "{}" }).catch((error: unknown) => say(explain(error)));
  };

  composer.addEventListener("submit", (event) => {
    event.preventDefault();
    void sendMessage();
  });
  message.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      void sendMessage();
    }
  });
  stopButton.addEventListener("click", stop);
  const onEscape = (event: KeyboardEvent): void => {
    if (event.key === "Escape") stop();
  };
  document.addEventListener("keydown", onEscape);
  signal.addEventListener("abort", () => {
    document.removeEventListener("keydown", onEscape);
    running?.abort();
  });

  for (const m of page.messages) show(m.role, m.content, m.role === "user" ? m.sender_name : null);
  main.replaceChildren(
    route("← Agent", `#/agents/${thread.agent_id}`),
    h("h2", {}, thread.title ?? `Thread ${id.slice(0, 8)}`),
    h("div", { class: "chat" }, transcript, composer),
  );
  message.focus();
  void follow(id, signal, (event, live) => {
    if (event.event === "meta") {
      if (running) return null;
      const user = (event.data as { userMessage?: { content: string; senderName: string | null } | null }).userMessage;
      if (user) show("user", user.content, user.senderName);
      return answer();
    }
    if (live && !apply(event, live)) return live;
    return null;
  });
}

/** Watches `thread` until `signal`: each turn another client starts. */
async function follow(
  thread: string,
  signal: AbortSignal,
  onEvent: (event: StreamEvent, live: LiveAnswer | null) => LiveAnswer | null,
): Promise<void> {
  try {
    const response = await request(`/api/threads/${thread}/stream?follow=true`, { signal });
    let live: LiveAnswer | null = null;
    await readEvents(response, (event) => {
      live = onEvent(event, live);
    }, signal);
  } catch {
    // The view was left (abort) or the watch ended; the history stays.
  }
}
