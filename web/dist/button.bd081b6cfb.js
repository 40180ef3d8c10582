"use strict";
(() => {
  var __defProp = Object.defineProperty;
  var __defNormalProp = (obj, key, value) => key in obj ? __defProp(obj, key, { enumerable: true, configurable: true, writable: true, value }) : obj[key] = value;
  var __publicField = (obj, key, value) => __defNormalProp(obj, typeof key !== "symbol" ? key + "" : key, value);

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
        const start = this.firstFrameAt;
        if (start === null || start < 0) return;
        this.firstFrameAt = -1;
        setTimeout(() => performance.measure("confer:first-token-paint", { start, end: performance.now() }), 0);
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
      const field2 = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field2 === "id") id = value;
      else if (field2 === "event") event = value;
      else if (field2 === "data") data.push(value);
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

  // src/button/main.ts
  var TERMINAL = /* @__PURE__ */ new Set(["succeeded", "failed", "cancelled", "expired"]);
  var $ = (selector) => {
    const found = document.querySelector(selector);
    if (!found) throw new Error(`missing ${selector}`);
    return found;
  };
  var config = JSON.parse($("#config").textContent ?? "{}");
  var form = $(".run-form");
  var fieldsBox = $(".fields");
  var submit = $(".submit");
  var statusRegion = $(".status");
  var output = $(".output");
  var chips = $(".suggestions");
  var embedded = new URLSearchParams(location.search).get("embed") === "1";
  var base = `/api/runners/${encodeURIComponent(config.runner_id)}/button`;
  function say(text) {
    statusRegion.textContent = text;
  }
  function kindOf(schema) {
    if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === "string")) return "enum";
    const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
    if (type === "string" || type === "boolean" || type === "number" || type === "integer") return type;
    return "json";
  }
  function field(name, schema, required2, index) {
    const kind = kindOf(schema);
    const wrap = document.createElement("div");
    wrap.className = `field ${kind}`;
    const id = `field-${index}`;
    const label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = (schema.title ?? name) + (required2 ? " *" : "");
    let control;
    if (kind === "enum") {
      const select = document.createElement("select");
      if (!required2) select.append(new Option("", ""));
      for (const value of schema.enum) select.append(new Option(value, value));
      control = select;
    } else if (kind === "json") {
      control = document.createElement("textarea");
      control.placeholder = "JSON";
    } else {
      const input = document.createElement("input");
      input.type = kind === "boolean" ? "checkbox" : kind === "string" ? "text" : "number";
      if (kind === "integer") input.step = "1";
      if (kind === "number") input.step = "any";
      control = input;
    }
    control.id = id;
    control.name = name;
    if (required2 && kind !== "boolean") control.required = true;
    if (kind === "boolean") wrap.append(control, label);
    else wrap.append(label, control);
    if (schema.description) {
      const hint = document.createElement("span");
      hint.className = "hint";
      hint.id = `${id}-hint`;
      hint.textContent = schema.description;
      control.setAttribute("aria-describedby", hint.id);
      wrap.append(hint);
    }
    fieldsBox.append(wrap);
    const read = () => {
      if (control instanceof HTMLInputElement && kind === "boolean") return control.checked;
      const text = control.value;
      if (text.trim() === "") {
        if (required2) throw new Error(`${schema.title ?? name}: required`);
        return void 0;
      }
      if (kind === "number" || kind === "integer") {
        const n = Number(text);
        if (!Number.isFinite(n)) throw new Error(`${schema.title ?? name}: a number`);
        return n;
      }
      if (kind === "json") {
        try {
          return JSON.parse(text);
        } catch {
          throw new Error(`${schema.title ?? name}: not valid JSON`);
        }
      }
      return text;
    };
    const fill = (value) => {
      if (control instanceof HTMLInputElement && kind === "boolean") control.checked = value === true;
      else if (value === void 0 || value === null) control.value = "";
      else if (kind === "json") control.value = JSON.stringify(value, null, 2);
      else control.value = String(value);
    };
    if (schema.default !== void 0) fill(schema.default);
    return { name, required: required2, read, fill };
  }
  var properties = config.input_schema.properties ?? {};
  var requiredNames = (config.input_schema.required ?? []).filter((name) => name in properties);
  var required = new Set(requiredNames);
  var ordered = [...requiredNames, ...Object.keys(properties).filter((name) => !required.has(name))];
  var fields = ordered.map((name, i) => field(name, properties[name] ?? {}, required.has(name), i));
  document.title = config.title;
  $(".title").textContent = config.title;
  if (config.description) {
    const description = $(".description");
    description.textContent = config.description;
    description.hidden = false;
  }
  for (const suggestion of config.suggestions) {
    const item = document.createElement("li");
    const chip = document.createElement("button");
    chip.type = "button";
    chip.className = "chip";
    chip.textContent = suggestion.label;
    chip.addEventListener("click", () => {
      for (const f of fields) f.fill(suggestion.input[f.name]);
      say(`Filled in: ${suggestion.label}`);
      submit.focus();
    });
    item.append(chip);
    chips.append(item);
  }
  chips.hidden = config.suggestions.length === 0;
  function readInput() {
    const input = {};
    for (const f of fields) {
      const value = f.read();
      if (value !== void 0) input[f.name] = value;
    }
    return input;
  }
  function show(live, value) {
    if (config.output_mode === "json") {
      const pre = document.createElement("pre");
      pre.textContent = JSON.stringify(value, null, 2);
      live.finish("");
      output.querySelector(".body")?.replaceChildren(pre);
    } else {
      live.finish(typeof value === "string" ? value : null);
    }
  }
  async function run(input) {
    const started = await fetch(base, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input })
    });
    if (!started.ok) throw await failure(started);
    const { run_id, view_token } = await started.json();
    output.hidden = false;
    const live = new LiveAnswer(output);
    say("Running…");
    const events = await fetch(
      `${base}/runs/${encodeURIComponent(run_id)}/events?viewToken=${encodeURIComponent(view_token)}`
    );
    if (!events.ok) throw await failure(events);
    let ended = false;
    await readEvents(events, (event) => {
      if (event.event === "token") {
        live.add(event.data.delta);
      } else if (event.event === "error") {
        say(event.data.detail ?? "The run failed.");
      } else if (event.event === "run_status") {
        const status = event.data;
        if (status.status === "succeeded") {
          ended = true;
          show(live, status.output);
          say("Done.");
        } else if (TERMINAL.has(status.status)) {
          ended = true;
          live.finish(null);
          say(status.error?.detail ?? `The run ${status.status}.`);
        } else if (status.status === "paused" || status.status === "requires_action") {
          say("The run is waiting for its operator.");
        }
      }
    });
    if (!ended) {
      live.finish(null);
      say("The connection ended before the run did.");
    }
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    let input;
    try {
      input = readInput();
    } catch (error) {
      say(error.message);
      return;
    }
    submit.disabled = true;
    run(input).catch((error) => say(error.message || "The run could not start.")).finally(() => {
      submit.disabled = false;
    });
  });
  if (embedded) {
    window.parent.postMessage({ type: "confer:ready", title: config.title }, "*");
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape") window.parent.postMessage({ type: "confer:close" }, "*");
    });
  }
})();
