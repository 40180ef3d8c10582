"use strict";
(() => {
  var __defProp = Object.defineProperty;
  var __defNormalProp = (obj, key, value) => key in obj ? __defProp(obj, key, { enumerable: true, configurable: true, writable: true, value }) : obj[key] = value;
  var __publicField = (obj, key, value) => __defNormalProp(obj, typeof key !== "symbol" ? key + "" : key, value);

  // src/shared/markdown.ts
  var SAFE_SCHEMES = ["http:", "https:", "mailto:"];
  function safeHref(target) {
    const trimmed = target.trim();
    try {
      const url = new URL(trimmed, "https://invalid.invalid/");
      if (!SAFE_SCHEMES.includes(url.protocol)) return null;
      if (url.host === "invalid.invalid") return null;
      return url.href;
    } catch {
      return null;
    }
  }
  function el(tag, text) {
    const node = document.createElement(tag);
    if (text !== void 0) node.textContent = text;
    return node;
  }
  function link(text, target) {
    const href = safeHref(target);
    if (!href) return document.createTextNode(text);
    const a = el("a");
    a.href = href;
    a.rel = "noopener noreferrer nofollow";
    a.target = "_blank";
    appendInline(a, text);
    return a;
  }
  var INLINE = /(`+)([\s\S]*?[^`])\1(?!`)|!\[([^\]]*)\]\(([^)\s]+)[^)]*\)|\[([^\]]+)\]\(([^)\s]+)[^)]*\)|\*\*([\s\S]+?)\*\*|__([\s\S]+?)__|~~([\s\S]+?)~~|\*([^*\s][^*]*?)\*|_([^_\s][^_]*?)_/g;
  function appendInline(parent, text) {
    let at = 0;
    for (const match of text.matchAll(INLINE)) {
      if (match.index > at) parent.appendChild(document.createTextNode(text.slice(at, match.index)));
      at = match.index + match[0].length;
      const [, , code, imageAlt, imageSrc, linkText, linkHref, strong1, strong2, strike, em1, em2] = match;
      if (code !== void 0) {
        parent.appendChild(el("code", code.trim()));
      } else if (imageSrc !== void 0) {
        parent.appendChild(link(imageAlt || imageSrc, imageSrc));
      } else if (linkText !== void 0 && linkHref !== void 0) {
        parent.appendChild(link(linkText, linkHref));
      } else if (strong1 !== void 0 || strong2 !== void 0) {
        const node = el("strong");
        appendInline(node, strong1 ?? strong2 ?? "");
        parent.appendChild(node);
      } else if (strike !== void 0) {
        const node = el("s");
        appendInline(node, strike);
        parent.appendChild(node);
      } else {
        const node = el("em");
        appendInline(node, em1 ?? em2 ?? "");
        parent.appendChild(node);
      }
    }
    if (at < text.length) parent.appendChild(document.createTextNode(text.slice(at)));
  }
  function tableCells(line) {
    return line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((cell) => cell.trim());
  }
  var FENCE = /^\s*(```|~~~)/;
  var HEADING = /^(#{1,6})\s+(.*)$/;
  var BULLET = /^\s*[-*+]\s+(.*)$/;
  var NUMBERED = /^\s*\d+[.)]\s+(.*)$/;
  var QUOTE = /^\s*>\s?(.*)$/;
  var TABLE_RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;
  function render(source) {
    const out = document.createDocumentFragment();
    const lines = source.replace(/\r\n?/g, "\n").split("\n");
    let i = 0;
    while (i < lines.length) {
      const line = lines[i] ?? "";
      if (line.trim() === "") {
        i += 1;
        continue;
      }
      const fence = FENCE.exec(line);
      if (fence) {
        const body = [];
        i += 1;
        while (i < lines.length && !(lines[i] ?? "").trim().startsWith(fence[1] ?? "```")) {
          body.push(lines[i] ?? "");
          i += 1;
        }
        i += 1;
        const pre = el("pre");
        pre.appendChild(el("code", body.join("\n")));
        out.appendChild(pre);
        continue;
      }
      const heading = HEADING.exec(line);
      if (heading) {
        const level = Math.min(6, (heading[1] ?? "#").length);
        const node = el(`h${level}`);
        appendInline(node, heading[2] ?? "");
        out.appendChild(node);
        i += 1;
        continue;
      }
      if (line.includes("|") && TABLE_RULE.test(lines[i + 1] ?? "")) {
        const table = el("table");
        const head = el("thead");
        const row = el("tr");
        for (const cell of tableCells(line)) {
          const th = el("th");
          appendInline(th, cell);
          row.appendChild(th);
        }
        head.appendChild(row);
        table.appendChild(head);
        const body = el("tbody");
        i += 2;
        while (i < lines.length && (lines[i] ?? "").includes("|") && (lines[i] ?? "").trim() !== "") {
          const tr = el("tr");
          for (const cell of tableCells(lines[i] ?? "")) {
            const td = el("td");
            appendInline(td, cell);
            tr.appendChild(td);
          }
          body.appendChild(tr);
          i += 1;
        }
        table.appendChild(body);
        out.appendChild(table);
        continue;
      }
      const listKind = BULLET.test(line) ? BULLET : NUMBERED.test(line) ? NUMBERED : null;
      if (listKind) {
        const list = el(listKind === BULLET ? "ul" : "ol");
        while (i < lines.length) {
          const item = listKind.exec(lines[i] ?? "");
          if (!item) break;
          const li = el("li");
          appendInline(li, item[1] ?? "");
          list.appendChild(li);
          i += 1;
        }
        out.appendChild(list);
        continue;
      }
      if (QUOTE.test(line)) {
        const quoted = [];
        while (i < lines.length) {
          const part = QUOTE.exec(lines[i] ?? "");
          if (!part) break;
          quoted.push(part[1] ?? "");
          i += 1;
        }
        const quote = el("blockquote");
        quote.appendChild(render(quoted.join("\n")));
        out.appendChild(quote);
        continue;
      }
      const paragraph = [];
      while (i < lines.length) {
        const next = lines[i] ?? "";
        if (next.trim() === "" || FENCE.test(next) || HEADING.test(next) || QUOTE.test(next)) break;
        if (paragraph.length > 0 && (BULLET.test(next) || NUMBERED.test(next))) break;
        paragraph.push(next);
        i += 1;
      }
      const p = el("p");
      paragraph.forEach((text, n) => {
        if (n > 0) p.appendChild(el("br"));
        appendInline(p, text);
      });
      out.appendChild(p);
    }
    return out;
  }

  // src/shared/live.ts
  var LiveAnswer = class {
    constructor(node, onPaint = () => {
    }) {
      __publicField(this, "node", node);
      __publicField(this, "onPaint", onPaint);
      __publicField(this, "text", "");
      __publicField(this, "scheduled", false);
      __publicField(this, "firstFrameAt", null);
      this.node.setAttribute("aria-busy", "true");
    }
    paint() {
      this.node.querySelector(".body")?.replaceChildren(render(this.text));
      this.onPaint(this.node);
    }
    /** Adds a token's delta; the bubble shows it at the next frame. */
    add(delta) {
      const first = this.text === "" && this.firstFrameAt === null;
      this.text += delta;
      if (first) this.firstFrameAt = performance.now();
      if (this.scheduled) return;
      this.scheduled = true;
      requestAnimationFrame(() => {
        this.scheduled = false;
        this.paint();
        const start2 = this.firstFrameAt;
        if (start2 === null || start2 < 0) return;
        this.firstFrameAt = -1;
        setTimeout(() => performance.measure("confer:first-token-paint", { start: start2, end: performance.now() }), 0);
      });
    }
    /** Ends the answer with the stream's final text (null: what was streamed). */
    finish(content) {
      if (content !== null) this.text = content;
      this.paint();
      this.node.setAttribute("aria-busy", "false");
    }
  };

  // src/shared/sse.ts
  var SseParser = class {
    constructor() {
      __publicField(this, "buffer", "");
    }
    /** The events completed by `chunk`. */
    push(chunk) {
      this.buffer += chunk;
      const events = [];
      for (; ; ) {
        const end = this.buffer.search(/\r?\n\r?\n/);
        if (end < 0) break;
        const block = this.buffer.slice(0, end);
        const rest = this.buffer.slice(end).replace(/^\r?\n\r?\n/, "");
        this.buffer = rest;
        const parsed = parseBlock(block);
        if (parsed) events.push(parsed);
      }
      return events;
    }
  };
  function parseBlock(block) {
    let id = null;
    let event = "message";
    const data = [];
    for (const line of block.split(/\r?\n/)) {
      if (line === "" || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") id = value;
      else if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
    if (data.length === 0) return null;
    let parsed;
    try {
      parsed = JSON.parse(data.join("\n"));
    } catch {
      parsed = data.join("\n");
    }
    return { id, event, data: parsed };
  }
  async function readEvents(response, onEvent, signal) {
    const body = response.body;
    if (!body) return;
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    const parser = new SseParser();
    try {
      for (; ; ) {
        if (signal?.aborted) break;
        const { done, value } = await reader.read();
        if (done) break;
        for (const event of parser.push(value)) onEvent(event);
      }
    } finally {
      reader.releaseLock();
    }
  }

  // src/shared/store.ts
  var PageStore = class {
    constructor(prefix, persistence) {
      __publicField(this, "prefix", prefix);
      __publicField(this, "memory", /* @__PURE__ */ new Map());
      __publicField(this, "backing");
      let backing = null;
      try {
        if (persistence === "local") backing = window.localStorage;
        if (persistence === "session") backing = window.sessionStorage;
      } catch {
        backing = null;
      }
      this.backing = backing;
    }
    get(key) {
      const name = `${this.prefix}:${key}`;
      try {
        return this.backing ? this.backing.getItem(name) : this.memory.get(name) ?? null;
      } catch {
        return this.memory.get(name) ?? null;
      }
    }
    set(key, value) {
      const name = `${this.prefix}:${key}`;
      try {
        if (this.backing) {
          if (value === null) this.backing.removeItem(name);
          else this.backing.setItem(name, value);
          return;
        }
      } catch {
      }
      if (value === null) this.memory.delete(name);
      else this.memory.set(name, value);
    }
  };

  // src/shared/errors.ts
  var ApiFailure = class extends Error {
    constructor(status, code, detail, retryAfter) {
      super(detail);
      __publicField(this, "status", status);
      __publicField(this, "code", code);
      __publicField(this, "retryAfter", retryAfter);
    }
  };
  async function failure(response) {
    let code = "ERROR";
    let detail = response.statusText;
    try {
      const body = await response.json();
      code = body.error ?? code;
      detail = body.detail ?? detail;
    } catch {
    }
    const retry = Number(response.headers.get("retry-after"));
    return new ApiFailure(response.status, code, detail, Number.isFinite(retry) && retry > 0 ? retry : null);
  }

  // src/chat/session.ts
  var Session = class {
    constructor(base2, store, origin) {
      __publicField(this, "base", base2);
      __publicField(this, "store", store);
      __publicField(this, "origin", origin);
      __publicField(this, "token", null);
      __publicField(this, "renewAt", 0);
      __publicField(this, "userToken", null);
    }
    /** Whether a secret from an earlier visit is kept. */
    hasSecret() {
      return this.store.get("secret") !== null;
    }
    /** Uses the host's signed identity from now on (a new session). */
    identify(userToken) {
      this.userToken = userToken;
      this.token = null;
    }
    async mint() {
      const body = {};
      const secret = this.store.get("secret");
      if (secret) body.visitorSecret = secret;
      if (this.userToken) body.userToken = this.userToken;
      if (this.origin) body.origin = this.origin;
      const response = await fetch(`${this.base}/session`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body)
      });
      if (!response.ok) throw await failure(response);
      const minted = await response.json();
      this.store.set("secret", minted.visitor_secret);
      this.token = minted.token;
      this.renewAt = Date.now() + Math.max(0, minted.expires_in - 120) * 1e3;
      return minted.token;
    }
    /** A valid token, minting one if needed. */
    async ensure() {
      if (this.token && Date.now() < this.renewAt) return this.token;
      return this.mint();
    }
    /** `fetch` of `path` under the chat's prefix with the token; one retry
     * with a new token after a 401. Errors other than `allow` are thrown. */
    async request(path, init = {}, allow = []) {
      for (let attempt = 0; ; attempt += 1) {
        const token = await this.ensure();
        const headers = new Headers(init.headers);
        headers.set("authorization", `Bearer ${token}`);
        if (init.body && !headers.has("content-type")) headers.set("content-type", "application/json");
        const response = await fetch(`${this.base}${path}`, { ...init, headers });
        if (response.status === 401 && attempt === 0) {
          this.token = null;
          continue;
        }
        if (response.ok || allow.includes(response.status)) return response;
        throw await failure(response);
      }
    }
    /** The JSON of a request. */
    async json(path, init = {}) {
      const response = await this.request(path, init);
      return await response.json();
    }
  };

  // src/chat/main.ts
  var $ = (selector) => {
    const found = document.querySelector(selector);
    if (!found) throw new Error(`missing ${selector}`);
    return found;
  };
  var transcript = $(".transcript");
  var statusRegion = $(".status");
  var form = $(".composer");
  var input = $("#message");
  var nameInput = $("#name");
  var sendButton = $(".send");
  var stopButton = $(".stop");
  var prompts = $(".prompts");
  var threadList = $(".threads");
  var slug = decodeURIComponent(location.pathname.split("/")[2] ?? "");
  var embedded = new URLSearchParams(location.search).get("embed") === "1";
  var base = `/api/public/chat/${encodeURIComponent(slug)}`;
  function parentOrigin() {
    if (!embedded || window.parent === window) return null;
    const ancestors = location.ancestorOrigins;
    let origin = null;
    if (ancestors && ancestors.length > 0) origin = ancestors[0] ?? null;
    else {
      try {
        origin = document.referrer ? new URL(document.referrer).origin : null;
      } catch {
        origin = null;
      }
    }
    return origin === location.origin ? null : origin;
  }
  function say(text) {
    statusRegion.textContent = text;
  }
  function textOn(hex) {
    const channel = (i) => {
      const v = parseInt(hex.slice(i, i + 2), 16) / 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    };
    const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
    return (luminance + 0.05) / 0.05 >= 4.5 ? "#000000" : "#ffffff";
  }
  function bubble(role, sender) {
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
  function show(role, content, sender = null) {
    const node = bubble(role, sender);
    node.querySelector(".body")?.replaceChildren(render(content));
    node.scrollIntoView({ block: "end" });
    return node;
  }
  function answer() {
    return new LiveAnswer(bubble("assistant", null), (node) => node.scrollIntoView({ block: "end" }));
  }
  async function start() {
    document.body.classList.toggle("embedded", embedded);
    const response = await fetch(base);
    if (!response.ok) {
      say("This chat is not available.");
      form.hidden = true;
      return;
    }
    const config = await response.json();
    document.title = config.title;
    $(".title").textContent = config.title;
    const root = document.documentElement.style;
    root.setProperty("--theme", config.theme_color);
    root.setProperty("--on-theme", textOn(config.theme_color));
    if (config.avatar_url) {
      const avatar = $(".avatar");
      avatar.src = config.avatar_url;
      avatar.hidden = false;
    }
    input.maxLength = config.max_message_chars;
    if (config.status === "paused") {
      const notice = $(".notice");
      notice.textContent = "This chat is paused. Please come back later.";
      notice.hidden = false;
      form.hidden = true;
      return;
    }
    const askName = config.mode === "multiplayer" && config.display_names === "chosen";
    nameInput.hidden = !askName;
    $(".name-label").hidden = !askName;
    const store = new PageStore(`confer:${config.slug}`, config.persistence);
    const session = new Session(base, store, parentOrigin());
    const chat = new Chat(config, store, session);
    chat.wire();
    if (session.hasSecret() || location.hash.startsWith("#join=")) await chat.resume();
    else chat.greet();
    if (embedded) window.parent.postMessage({ type: "confer:ready", title: config.title }, "*");
  }
  var Chat = class {
    constructor(config, store, session) {
      __publicField(this, "config", config);
      __publicField(this, "store", store);
      __publicField(this, "session", session);
      __publicField(this, "thread");
      __publicField(this, "running", null);
      this.thread = store.get("thread");
    }
    wire() {
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
        if (event.source !== window.parent || event.origin !== parentOrigin()) return;
        const data = event.data;
        if (data?.type === "confer:identify" && typeof data.userToken === "string") {
          this.session.identify(data.userToken);
        }
      });
    }
    greet() {
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
    newChat() {
      this.thread = null;
      this.store.set("thread", null);
      this.store.set("turn", null);
      this.greet();
      input.focus();
    }
    async resume() {
      try {
        await this.joinFromLink();
        await this.listThreads();
        if (!this.thread) {
          this.greet();
          return;
        }
        const page = await this.session.json(
          `/threads/${this.thread}/messages?limit=200`
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
    async joinFromLink() {
      const match = /^#join=([0-9a-f-]{36})\.([A-Za-z0-9_-]+)$/.exec(location.hash);
      if (!match) return;
      history.replaceState(null, "", location.pathname + location.search);
      const name = nameInput.value.trim() || void 0;
      await this.session.json(`/threads/${match[1]}/join`, {
        method: "POST",
        body: JSON.stringify({ code: match[2], displayName: name })
      });
      this.thread = match[1] ?? null;
      this.store.set("thread", this.thread);
    }
    async listThreads() {
      if (this.config.persistence === "none") return;
      const page = await this.session.json(
        "/threads?limit=20"
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
    async reattach(turn) {
      const response = await this.session.request(
        `/threads/${this.thread}/stream`,
        { headers: { "last-event-id": `${turn}.0` } },
        [204, 409]
      );
      if (response.status !== 200) {
        this.store.set("turn", null);
        return;
      }
      await this.stream(response, answer());
    }
    async follow() {
      const response = await this.session.request(`/threads/${this.thread}/stream?follow=true`);
      let live = null;
      await readEvents(response, (event) => {
        const data = event.data;
        if (event.event === "meta" && !this.running) {
          const message = data.userMessage;
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
    async send(text) {
      const content = text.trim();
      if (!content || this.running) return;
      try {
        if (!this.thread) {
          const name = nameInput.hidden ? void 0 : nameInput.value.trim() || void 0;
          const made = await this.session.json("/threads", {
            method: "POST",
            body: JSON.stringify({ displayName: name })
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
          signal: controller.signal
        });
        await this.stream(response, answer());
      } catch (error) {
        if (!(error instanceof DOMException && error.name === "AbortError")) this.fail(error);
      } finally {
        this.running = null;
        this.busy(false);
      }
    }
    async stream(response, live) {
      let finished = false;
      await readEvents(response, (event) => {
        const data = event.data ?? {};
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
    async stop() {
      if (!this.thread) return;
      try {
        await this.session.request(`/threads/${this.thread}/stop`, { method: "POST", body: "{}" });
      } catch (error) {
        this.fail(error);
      }
    }
    busy(on) {
      sendButton.hidden = on;
      stopButton.hidden = !on;
      say(on ? "The assistant is answering… (Escape stops)" : "");
    }
    fail(error) {
      if (error instanceof ApiFailure) {
        const wait = error.retryAfter ? ` Try again in ${error.retryAfter} s.` : "";
        say(`${error.message}.${wait}`);
      } else {
        say("Something went wrong. Please try again.");
      }
    }
  };
  void start().catch(() => say("This chat could not load."));
})();
