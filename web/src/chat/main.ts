// The public chat page (publishing.md "Pages" rules 3–7, 9): the
// configuration first, a session only when the visitor acts (or at load
// when a secret is kept), answers streamed with fetch and our own SSE
// parser, rendered as safe Markdown at most once per animation frame, and
// resumed after a reload from the turn that was running.

import { render } from "../shared/markdown";
import { LiveAnswer as Live } from "../shared/live";
import { readEvents, type StreamEvent } from "../shared/sse";
import { PageStore, type Persistence } from "../shared/store";
import { ChatError, Session } from "./session";

interface Config {
  slug: string;
  title: string;
  description: string;
  greeting: string | null;
  suggested_prompts: string[];
  theme_color: string;
  avatar_url: string | null;
  persistence: Persistence;
  mode: "single" | "multiplayer";
  identity: "anonymous" | "optional" | "required";
  status: "active" | "paused";
  max_message_chars: number;
  display_names: "chosen" | "generated";
}

interface Message {
  role: "user" | "assistant";
  content: string;
  sender_name: string | null;
}

const $ = <T extends Element>(selector: string): T => {
  const found = document.querySelector<T>(selector);
  if (!found) throw new Error(`missing ${selector}`);
  return found;
};

const transcript = $<HTMLDivElement>(".transcript");
const statusRegion = $<HTMLDivElement>(".status");
const form = $<HTMLFormElement>(".composer");
const input = $<HTMLTextAreaElement>("#message");
const nameInput = $<HTMLInputElement>("#name");
const sendButton = $<HTMLButtonElement>(".send");
const stopButton = $<HTMLButtonElement>(".stop");
const prompts = $<HTMLUListElement>(".prompts");
const threadList = $<HTMLElement>(".threads");

const slug = decodeURIComponent(location.pathname.split("/")[2] ?? "");
const embedded = new URLSearchParams(location.search).get("embed") === "1";
const base = `/api/public/chat/${encodeURIComponent(slug)}`;

/** The embedding site, as the browser tells it (never the page's say-so). */
function parentOrigin(): string | null {
  if (!embedded || window.parent === window) return null;
  const ancestors = location.ancestorOrigins;
  let origin: string | null = null;
  if (ancestors && ancestors.length > 0) origin = ancestors[0] ?? null;
  else {
    try {
      origin = document.referrer ? new URL(document.referrer).origin : null;
    } catch {
      origin = null;
    }
  }
  // Confer's own console previews the page: not an embedding site.
  return origin === location.origin ? null : origin;
}

function say(text: string): void {
  statusRegion.textContent = text;
}

/** Black or white, whichever reads at ≥ 4.5:1 on `hex`. */
function textOn(hex: string): string {
  const channel = (i: number) => {
    const v = parseInt(hex.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return (luminance + 0.05) / 0.05 >= 4.5 ? "#000000" : "#ffffff";
}

function bubble(role: string, sender: string | null): HTMLDivElement {
  const node = document.createElement("div");
  node.className = `message ${role}`;
  if (sender) {
    const who = document.createElement("div");
    who.className = "sender";
    who.textContent = sender;
    node.appendChild(who);
  }
  const body = document.createElement("div");
  body.className = "body";
  node.appendChild(body);
  transcript.appendChild(node);
  return node;
}

function show(role: string, content: string, sender: string | null = null): HTMLDivElement {
  const node = bubble(role, sender);
  node.querySelector(".body")?.replaceChildren(render(content));
  node.scrollIntoView({ block: "end" });
  return node;
}

/** A new assistant bubble, streaming. */
function answer(): Live {
  return new Live(bubble("assistant", null), (node) => node.scrollIntoView({ block: "end" }));
}

async function start(): Promise<void> {
  document.body.classList.toggle("embedded", embedded);
  const response = await fetch(base);
  if (!response.ok) {
    say("This chat is not available.");
    form.hidden = true;
    return;
  }
  const config = (await response.json()) as Config;
  document.title = config.title;
  $(".title").textContent = config.title;
  const root = document.documentElement.style;
  root.setProperty("--theme", config.theme_color);
  root.setProperty("--on-theme", textOn(config.theme_color));
  if (config.avatar_url) {
    const avatar = $<HTMLImageElement>(".avatar");
    avatar.src = config.avatar_url;
    avatar.hidden = false;
  }
  input.maxLength = config.max_message_chars;
  if (config.status === "paused") {
    const notice = $<HTMLParagraphElement>(".notice");
    notice.textContent = "This chat is paused. Please come back later.";
    notice.hidden = false;
    form.hidden = true;
    return;
  }
  const askName = config.mode === "multiplayer" && config.display_names === "chosen";
  nameInput.hidden = !askName;
  $<HTMLLabelElement>(".name-label").hidden = !askName;
  const store = new PageStore(`confer:${config.slug}`, config.persistence);
  const session = new Session(base, store, parentOrigin());
  const chat = new Chat(config, store, session);
  chat.wire();
  if (session.hasSecret() || location.hash.startsWith("#join=")) await chat.resume();
  else chat.greet();
  // Only a type and the public title: nothing a foreign parent could use.
  if (embedded) window.parent.postMessage({ type: "confer:ready", title: config.title }, "*");
}

class Chat {
  private thread: string | null;
  private running: AbortController | null = null;

  constructor(
    private readonly config: Config,
    private readonly store: PageStore,
    private readonly session: Session,
  ) {
    this.thread = store.get("thread");
  }

  wire(): void {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.send(input.value);
    });
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        void this.send(input.value);
      }
    });
    document.addEventListener("keydown", (event) => {
      if (event.key !== "Escape") return;
      if (this.running) void this.stop();
      else if (embedded) window.parent.postMessage({ type: "confer:close" }, "*");
    });
    stopButton.addEventListener("click", () => void this.stop());
    $(".new-chat").addEventListener("click", () => this.newChat());
    window.addEventListener("message", (event) => {
      // Only the embedding page, from an allowed origin, may identify.
      if (event.source !== window.parent || event.origin !== parentOrigin()) return;
      const data = event.data as { type?: string; userToken?: string };
      if (data?.type === "confer:identify" && typeof data.userToken === "string") {
        this.session.identify(data.userToken);
      }
    });
  }

  greet(): void {
    transcript.replaceChildren();
    if (this.config.greeting) show("assistant greeting", this.config.greeting);
    prompts.replaceChildren();
    for (const text of this.config.suggested_prompts) {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = text;
      button.addEventListener("click", () => void this.send(text));
      item.appendChild(button);
      prompts.appendChild(item);
    }
  }

  newChat(): void {
    this.thread = null;
    this.store.set("thread", null);
    this.store.set("turn", null);
    this.greet();
    input.focus();
  }

  async resume(): Promise<void> {
    try {
      await this.joinFromLink();
      await this.listThreads();
      if (!this.thread) {
        this.greet();
        return;
      }
      const page = await this.session.json<{ messages: Message[] }>(
        `/threads/${this.thread}/messages?limit=200`,
      );
      this.greet();
      if (page.messages.length > 0) prompts.replaceChildren();
      for (const message of page.messages) {
        show(message.role, message.content, message.role === "user" ? message.sender_name : null);
      }
      const turn = this.store.get("turn");
      if (turn) await this.reattach(turn);
      if (this.config.mode === "multiplayer") void this.follow();
    } catch (error) {
      this.fail(error);
    }
  }

  private async joinFromLink(): Promise<void> {
    const match = /^#join=([0-9a-f-]{36})\.([A-Za-z0-9_-]+)$/.exec(location.hash);
    if (!match) return;
    history.replaceState(null, "", location.pathname + location.search);
    const name = nameInput.value.trim() || undefined;
    await this.session.json(`/threads/${match[1]}/join`, {
      method: "POST",
      body: JSON.stringify({ code: match[2], displayName: name }),
    });
    this.thread = match[1] ?? null;
    this.store.set("thread", this.thread);
  }

  private async listThreads(): Promise<void> {
    if (this.config.persistence === "none") return;
    const page = await this.session.json<{ threads: { id: string; title: string | null; created_at: string }[] }>(
      "/threads?limit=20",
    );
    const list = threadList.querySelector("ul");
    if (!list || page.threads.length === 0) return;
    list.replaceChildren();
    for (const thread of page.threads) {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = thread.title ?? new Date(thread.created_at).toLocaleString();
      button.addEventListener("click", () => {
        this.thread = thread.id;
        this.store.set("thread", thread.id);
        this.store.set("turn", null);
        void this.resume();
      });
      item.appendChild(button);
      list.appendChild(item);
    }
    threadList.hidden = false;
  }

  /** The rest of the turn that was running at the reload, shown once. */
  private async reattach(turn: string): Promise<void> {
    const response = await this.session.request(
      `/threads/${this.thread}/stream`,
      { headers: { "last-event-id": `${turn}.0` } },
      [204, 409],
    );
    if (response.status !== 200) {
      this.store.set("turn", null);
      return;
    }
    await this.stream(response, answer());
  }

  private async follow(): Promise<void> {
    const response = await this.session.request(`/threads/${this.thread}/stream?follow=true`);
    let live: Live | null = null;
    await readEvents(response, (event) => {
      const data = event.data as Record<string, unknown>;
      if (event.event === "meta" && !this.running) {
        const message = data.userMessage as { content: string; senderName: string | null } | null;
        if (message) show("user", message.content, message.senderName);
        live = answer();
      } else if (event.event === "token" && live && !this.running) {
        live.add(String(data.delta ?? ""));
      } else if (event.event === "done" && live) {
        live.finish(typeof data.content === "string" ? data.content : null);
        live = null;
      }
    });
  }

  async send(text: string): Promise<void> {
    const content = text.trim();
    if (!content || this.running) return;
    try {
      if (!this.thread) {
        const name = nameInput.hidden ? undefined : nameInput.value.trim() || undefined;
        const made = await this.session.json<{ id: string }>("/threads", {
          method: "POST",
          body: JSON.stringify({ displayName: name }),
        });
        this.thread = made.id;
        this.store.set("thread", made.id);
      }
      prompts.replaceChildren();
      input.value = "";
      show("user", content);
      const controller = new AbortController();
      this.running = controller;
      this.busy(true);
      const response = await this.session.request(`/threads/${this.thread}/messages`, {
        method: "POST",
        body: JSON.stringify({ content }),
        signal: controller.signal,
      });
      await this.stream(response, answer());
    } catch (error) {
      if (!(error instanceof DOMException && error.name === "AbortError")) this.fail(error);
    } finally {
      this.running = null;
      this.busy(false);
    }
  }

  private async stream(response: Response, live: Live): Promise<void> {
    let finished = false;
    await readEvents(response, (event: StreamEvent) => {
      const data = (event.data ?? {}) as Record<string, unknown>;
      if (event.id && event.event === "meta") {
        this.store.set("turn", event.id.split(".")[0] ?? null);
      }
      switch (event.event) {
        case "token":
          live.add(String(data.delta ?? ""));
          break;
        case "queued":
          say("Waiting for the assistant…");
          break;
        case "error":
          say(String(data.detail ?? "Something went wrong."));
          break;
        case "done":
          finished = true;
          live.finish(typeof data.content === "string" ? data.content : null);
          this.store.set("turn", null);
          say("");
          break;
        default:
          break;
      }
    });
    if (!finished) live.finish(null);
  }

  private async stop(): Promise<void> {
    if (!this.thread) return;
    try {
      await this.session.request(`/threads/${this.thread}/stop`, { method: "POST", body: "{}" });
    } catch (error) {
      this.fail(error);
    }
  }

  private busy(on: boolean): void {
    sendButton.hidden = on;
    stopButton.hidden = !on;
    say(on ? "The assistant is answering… (Escape stops)" : "");
  }

  private fail(error: unknown): void {
    if (error instanceof ChatError) {
      const wait = error.retryAfter ? ` Try again in ${error.retryAfter} s.` : "";
      say(`${error.message}.${wait}`);
    } else {
      say("Something went wrong. Please try again.");
    }
  }
}

void start().catch(() => say("This chat could not load."));
