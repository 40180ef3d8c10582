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
      const body2 = await response.json();
      code = body2.error ?? code;
      detail = body2.detail ?? detail;
    } catch {
    }
    const retry = Number(response.headers.get("retry-after"));
    return new ApiFailure(response.status, code, detail, Number.isFinite(retry) && retry > 0 ? retry : null);
  }

  // src/console/api.ts
  var KEY = "confer:console:key";
  function apiKey() {
    try {
      return sessionStorage.getItem(KEY);
    } catch {
      return null;
    }
  }
  function signIn(key) {
    sessionStorage.setItem(KEY, key);
  }
  function signOut() {
    sessionStorage.removeItem(KEY);
    window.dispatchEvent(new Event("confer:signed-out"));
  }
  async function request(path, init = {}, allow = []) {
    const headers = new Headers(init.headers);
    headers.set("authorization", `Bearer ${apiKey() ?? ""}`);
    if (init.body && !headers.has("content-type")) headers.set("content-type", "application/json");
    const response = await fetch(path, { ...init, headers, credentials: "omit" });
    if (response.status === 401) {
      const refused = await failure(response);
      signOut();
      throw refused;
    }
    if (response.ok || allow.includes(response.status)) return response;
    throw await failure(response);
  }
  async function get(path) {
    return await (await request(path)).json();
  }
  async function send(method, path, body2) {
    return await (await request(path, { method, body: JSON.stringify(body2) })).json();
  }
  function explain(error) {
    if (error instanceof ApiFailure) return `${error.code}: ${error.message}`;
    return error instanceof Error ? error.message : String(error);
  }

  // src/console/dom.ts
  function h(tag, attributes = {}, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) {
      if (value === void 0 || value === false) continue;
      node.setAttribute(name, value === true ? "" : value);
    }
    for (const child of children) {
      if (child === null || child === void 0 || child === false) continue;
      node.append(child);
    }
    return node;
  }
  function table(caption, headers, rows) {
    return h(
      "table",
      {},
      h("caption", {}, caption),
      h("thead", {}, h("tr", {}, ...headers.map((name) => h("th", { scope: "col" }, name)))),
      h("tbody", {}, ...rows.map((row) => h("tr", {}, ...row.map((cell) => h("td", {}, cell)))))
    );
  }
  var fields = 0;
  function labelled(label, control, hint) {
    fields += 1;
    const id = `field-${fields}`;
    control.id = id;
    const note = hint ? h("small", { id: `${id}-hint` }, hint) : null;
    if (note) control.setAttribute("aria-describedby", note.id);
    return h("div", { class: "field" }, h("label", { for: id }, label), control, note);
  }
  function input(name, value = "", type = "text") {
    const node = h("input", { name, type });
    node.value = value;
    return node;
  }
  function select(name, options, value) {
    const node = h("select", { name }, ...options.map(([v, text3]) => h("option", { value: v }, text3)));
    node.value = value;
    return node;
  }
  function button(text3, action, kind = "button") {
    const node = h("button", { type: kind }, text3);
    if (kind === "button") node.addEventListener("click", action);
    return node;
  }
  function route(text3, hash) {
    return h("a", { href: hash }, text3);
  }
  function form(label, controls, submitText, submit) {
    const node = h("form", { "aria-label": label }, ...controls, h("button", { type: "submit" }, submitText));
    node.addEventListener("submit", (event) => {
      event.preventDefault();
      submit(new FormData(node));
    });
    return node;
  }
  function when(iso) {
    return iso ? new Date(iso).toLocaleString() : "—";
  }
  function count(value, digits = 0) {
    return value === null || value === void 0 ? "—" : value.toLocaleString(void 0, { maximumFractionDigits: digits });
  }

  // src/console/publish.ts
  var text = (values, name) => String(values.get(name) ?? "").trim();
  function fields2(p) {
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
        select("persistence", [["local", "In the browser"], ["session", "For the tab"], ["none", "Not at all"]], p.persistence ?? "local")
      ),
      labelled("Tools visitors may use", input("publicTools", (p.public_tools ?? []).join(", ")), "Comma-separated tool names.")
    ];
  }
  function body(values) {
    const out = {
      description: text(values, "description"),
      greeting: text(values, "greeting") || null,
      themeColor: text(values, "themeColor"),
      mode: text(values, "mode"),
      persistence: text(values, "persistence"),
      publicTools: text(values, "publicTools").split(",").map((name) => name.trim()).filter(Boolean)
    };
    if (text(values, "title")) out.title = text(values, "title");
    return out;
  }
  async function publishPanel({ say: say2 }, agent) {
    const path = `/api/agents/${agent.id}/publish`;
    const panel = h("section", { "aria-labelledby": "publish-heading" });
    const draw = (p, note = "") => {
      panel.replaceChildren(h("h3", { id: "publish-heading" }, "Public chat"));
      if (note) panel.append(h("p", { role: "alert" }, note));
      const act = (change, done) => {
        void change.then(() => get(path)).then((fresh) => {
          draw(fresh);
          say2(done);
        }).catch((error) => error instanceof Error && /not published/.test(error.message) ? draw(null) : say2(explain(error)));
      };
      if (!p) {
        panel.append(
          h("p", {}, "Not published."),
          form("Publish", [labelled("Slug", input("slug"), "Empty: made from the agent's name."), ...fields2({ title: agent.name })], "Publish", (values) => {
            const fresh = body(values);
            if (text(values, "slug")) fresh.slug = text(values, "slug");
            void send("POST", path, fresh).then((made) => {
              draw(made);
              say2("Published.");
            }).catch((error) => say2(explain(error)));
          })
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
          p.status === "active" ? button("Pause", () => act(send("PATCH", path, { status: "paused" }), "Paused.")) : button("Resume", () => act(send("PATCH", path, { status: "active" }), "Resumed.")),
          button("Preview", () => {
            panel.querySelector(".preview")?.remove();
            panel.append(h("iframe", { class: "preview", src: `/c/${p.slug}?embed=1`, title: `Preview of ${p.title}` }));
          }),
          button("End visitor sessions", () => act(send("PATCH", path, { revokeSessions: true }), "Every visitor session ended.")),
          button("Unpublish", () => {
            if (confirm("Unpublish? The link stops working; the chats stay readable here.")) {
              void request(path, { method: "DELETE" }).then(() => draw(null, "Unpublished.")).catch((error) => say2(explain(error)));
            }
          })
        ),
        form("Public chat settings", fields2(p), "Save chat", (values) => act(send("PATCH", path, body(values)), "Saved."))
      );
    };
    const found = await request(path, {}, [404]);
    draw(found.status === 404 ? null : await found.json());
    return panel;
  }
  async function multiplayerPanel({ say: say2 }, agent) {
    const path = `/api/agents/${agent.id}/multiplayer`;
    const config = await get(path);
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
          labelled("Display names", select("displayNames", [["chosen", "Chosen by each person"], ["generated", "Generated"]], config.display_names))
        ],
        "Save multiplayer",
        (values) => {
          void send("PUT", path, {
            maxParticipants: Number(values.get("maxParticipants")),
            whoCanInvite: text(values, "whoCanInvite"),
            displayNames: text(values, "displayNames")
          }).then(() => say2("Multiplayer settings saved.")).catch((error) => say2(explain(error)));
        }
      )
    );
  }

  // src/console/agents.ts
  function text2(values, name) {
    return String(values.get(name) ?? "").trim();
  }
  async function agentsView({ main: main2, say: say2 }) {
    const agents = await get("/api/agents");
    const rows = agents.map((agent) => [
      route(agent.name, `#/agents/${agent.id}`),
      agent.default_model,
      agent.published_chats[0]?.slug ?? "—",
      when(agent.created_at)
    ]);
    const create = form(
      "Create an agent",
      [
        labelled("Name", Object.assign(input("name"), { required: true, maxLength: 200 })),
        labelled("Model", input("model"), "Empty: the service's default model (builtin/echo without a vendor key)."),
        labelled("Description", input("description"))
      ],
      "Create agent",
      (values) => {
        const body2 = { name: text2(values, "name") };
        if (text2(values, "model")) body2.defaultModel = text2(values, "model");
        if (text2(values, "description")) body2.description = text2(values, "description");
        void send("POST", "/api/agents", body2).then((agent) => {
          location.hash = `#/agents/${agent.id}`;
        }).catch((error) => say2(explain(error)));
      }
    );
    main2.replaceChildren(
      h("h2", {}, "Agents"),
      agents.length ? table("Agents of the organization", ["Name", "Model", "Published", "Created"], rows) : h("p", {}, "No agent yet."),
      h("h3", {}, "New agent"),
      create
    );
  }
  async function agentView(context) {
    const { main: main2, params, say: say2 } = context;
    const id = params[0] ?? "";
    const agent = await get(`/api/agents/${id}`);
    const preamble = h("textarea", { name: "preamble", rows: "4" });
    preamble.value = agent.stable_preamble;
    const settings = form(
      "Agent settings",
      [
        labelled("Name", Object.assign(input("name", agent.name), { required: true })),
        labelled("Model", input("model", agent.default_model)),
        labelled("Description", input("description", agent.description)),
        labelled("System prompt", preamble)
      ],
      "Save",
      (values) => {
        void send("PATCH", `/api/agents/${id}`, {
          name: text2(values, "name"),
          defaultModel: text2(values, "model"),
          description: text2(values, "description"),
          stablePreamble: String(values.get("preamble") ?? "")
        }).then((saved) => {
          heading.textContent = saved.name;
          say2("Saved.");
        }).catch((error) => say2(explain(error)));
      }
    );
    const heading = h("h2", {}, agent.name);
    const threads = h("section", { "aria-labelledby": "threads-heading" }, h("h3", { id: "threads-heading" }, "Threads"));
    const newThread = button("New thread", () => {
      void send("POST", "/api/threads", { agentId: id }).then((thread) => {
        location.hash = `#/threads/${thread.id}`;
      }).catch((error) => say2(explain(error)));
    });
    threads.append(newThread);
    const page = await get(`/api/threads?agentId=${id}&limit=50`);
    threads.append(
      page.threads.length ? table(
        "Newest threads",
        ["Thread", "Created"],
        page.threads.map((t) => [route(t.title ?? t.id.slice(0, 8), `#/threads/${t.id}`), when(t.created_at)])
      ) : h("p", {}, "No thread yet.")
    );
    const remove = button("Delete agent", () => {
      if (!confirm(`Delete ${agent.name}? Its threads stay readable.`)) return;
      void request(`/api/agents/${id}`, { method: "DELETE" }).then(() => {
        location.hash = "#/agents";
      }).catch((error) => say2(explain(error)));
    });
    main2.replaceChildren(
      route("← Agents", "#/agents"),
      heading,
      h("section", { "aria-label": "Settings" }, settings, remove),
      threads,
      await publishPanel(context, agent),
      await multiplayerPanel(context, agent)
    );
  }

  // src/console/svg.ts
  var NS = "http://www.w3.org/2000/svg";
  function svg(tag, attributes = {}, ...children) {
    const node = document.createElementNS(NS, tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
    node.append(...children);
    return node;
  }
  function barChart(title, points, format) {
    const width = 640;
    const height = 180;
    const top = 24;
    const bottom = 20;
    const highest = Math.max(0, ...points.map(([, v]) => v));
    const max = highest > 0 ? highest : 1;
    const scale = highest > 0 ? `most ${format(highest)}` : "none yet";
    const step = width / Math.max(1, points.length);
    const chart = svg(
      "svg",
      { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": `${title}, ${scale}`, class: "chart" },
      svg("title", {}, title),
      svg("text", { x: 0, y: 14, class: "chart-title" }, `${title} (${scale})`),
      svg("line", { x1: 0, y1: height - bottom, x2: width, y2: height - bottom, class: "axis" })
    );
    points.forEach(([label, value], i) => {
      const barHeight = (height - top - bottom) * value / max;
      chart.append(
        svg(
          "rect",
          { x: i * step + 1, y: height - bottom - barHeight, width: Math.max(1, step - 2), height: barHeight, class: "bar" },
          svg("title", {}, `${label}: ${format(value)}`)
        )
      );
    });
    const first = points[0]?.[0];
    const last = points[points.length - 1]?.[0];
    if (first) chart.append(svg("text", { x: 0, y: height - 4, class: "tick" }, first));
    if (last) chart.append(svg("text", { x: width, y: height - 4, class: "tick", "text-anchor": "end" }, last));
    return chart;
  }
  function waterfall(title, lanes) {
    const width = 720;
    const labelWidth = 200;
    const row = 22;
    const height = row * lanes.length + 4;
    const room = width - labelWidth - 4;
    const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title, class: "waterfall" }, svg("title", {}, title));
    lanes.forEach((lane, i) => {
      const y = i * row + 2;
      chart.append(
        svg("text", { x: 0, y: y + 15, class: "tick" }, lane.label.slice(0, 28)),
        svg(
          "rect",
          {
            x: labelWidth + lane.start * room,
            y: y + 3,
            width: Math.max(2, lane.length * room),
            height: row - 8,
            class: lane.error ? "bar error" : "bar"
          },
          svg("title", {}, lane.tooltip)
        )
      );
    });
    return chart;
  }

  // src/console/analytics.ts
  var usd = (v) => v === null ? "—" : `$${v.toFixed(4)}`;
  async function analyticsView({ main: main2 }) {
    const period = select("period", [["7d", "7 days"], ["30d", "30 days"], ["90d", "90 days"]], "30d");
    const body2 = h("div", {});
    const load = async () => {
      const data = await get(`/api/analytics?period=${period.value}`);
      const s = data.summary;
      const facts = [
        ["Turns", count(s.total_turns)],
        ["Threads", count(s.total_threads)],
        ["Users", count(s.unique_users)],
        ["Tokens in", count(s.input_tokens)],
        ["Tokens out", count(s.output_tokens)],
        ["Errors", count(s.errors)],
        ["Cost", usd(s.estimated_cost_usd ?? null)],
        ["p50 response", s.p50_response_time_ms === null ? "—" : `${count(s.p50_response_time_ms)} ms`]
      ];
      body2.replaceChildren(
        h("dl", { class: "facts" }, ...facts.map(([name, value]) => h("div", {}, h("dt", {}, name), h("dd", {}, value)))),
        barChart("Turns per day", data.daily.map((d) => [d.day, d.total_turns]), (v) => count(v)),
        barChart("Tokens per day", data.daily.map((d) => [d.day, d.input_tokens + d.output_tokens]), (v) => count(v)),
        barChart("Cost per day", data.daily.map((d) => [d.day, d.estimated_cost_usd ?? 0]), (v) => usd(v)),
        table(
          "Per agent",
          ["Agent", "Turns", "Tokens in", "Tokens out", "Cost"],
          data.by_agent.map((a) => [a.name || a.agent_id, count(a.total_turns), count(a.input_tokens), count(a.output_tokens), usd(a.estimated_cost_usd)])
        ),
        table(
          "Per model",
          ["Model", "Turns", "Tokens in", "Tokens out", "Cost"],
          data.by_model.map((m) => [m.model, count(m.total_turns), count(m.input_tokens), count(m.output_tokens), usd(m.estimated_cost_usd)])
        )
      );
    };
    period.addEventListener("change", () => void load());
    main2.replaceChildren(h("h2", {}, "Analytics"), h("div", { class: "filters" }, labelled("Period", period)), body2);
    await load();
  }

  // src/console/logs.ts
  async function logsView({ main: main2 }) {
    const filters = new URLSearchParams();
    const results = h("div", {});
    let cursor = null;
    const more = button("Older traces", () => void load(false));
    const load = async (fresh) => {
      const query = new URLSearchParams(filters);
      query.set("limit", "50");
      if (!fresh && cursor) query.set("cursor", cursor);
      const page = await get(`/api/logs?${query.toString()}`);
      cursor = page.nextCursor;
      const rows = page.traces.map((t) => [
        route(when(t.started_at), `#/logs/${t.id}`),
        h("span", { class: `badge ${t.status}` }, t.status),
        t.model ?? "—",
        t.duration_ms === null ? "—" : `${count(t.duration_ms)} ms`,
        `${count(t.total_input_tokens)} / ${count(t.total_output_tokens)}`,
        t.error_code ?? ""
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
        labelled("Model or error code contains", input("q"))
      ],
      "Filter",
      (values) => {
        for (const name of ["status", "agentId", "q"]) {
          const value = String(values.get(name) ?? "").trim();
          if (value) filters.set(name, value);
          else filters.delete(name);
        }
        void load(true);
      }
    );
    main2.replaceChildren(h("h2", {}, "Logs"), filter, results, more);
    await load(true);
  }
  async function logView({ main: main2, params }) {
    const { trace, spans } = await get(`/api/logs/${params[0] ?? ""}`);
    const start = Date.parse(trace.started_at);
    const whole = Math.max(1, trace.duration_ms ?? Math.max(...spans.map((s) => Date.parse(s.started_at) - start + (s.duration_ms ?? 0)), 1));
    const lanes = spans.map((s) => ({
      label: `${s.kind} ${s.name}`,
      start: Math.min(1, Math.max(0, (Date.parse(s.started_at) - start) / whole)),
      length: Math.min(1, (s.duration_ms ?? 0) / whole),
      error: s.status === "error",
      tooltip: `${s.kind} ${s.name}: ${count(s.duration_ms, 3)} ms${s.error ? ` (${s.error})` : ""}`
    }));
    main2.replaceChildren(
      route("← Logs", "#/logs"),
      h("h2", {}, `Trace ${trace.id.slice(0, 8)}`),
      h(
        "p",
        {},
        `${trace.status} · ${trace.model ?? "no model"} · ${count(trace.duration_ms, 1)} ms · first token ${count(trace.ttft_ms, 1)} ms · `,
        route("thread", `#/threads/${trace.thread_id}`)
      ),
      spans.length ? waterfall(`Spans of trace ${trace.id}`, lanes) : h("p", {}, "No span yet (the turn is running)."),
      table(
        "Spans",
        ["Kind", "Name", "Status", "Start (ms)", "Duration (ms)", "Error"],
        spans.map((s) => [s.kind, s.name, s.status, count(Date.parse(s.started_at) - start), count(s.duration_ms, 3), s.error ?? ""])
      )
    );
  }

  // src/console/settings.ts
  async function settingsView({ main: main2, say: say2 }) {
    const settings = await get("/api/orgs/settings");
    const domains = h("textarea", { name: "domains", rows: "6" });
    domains.value = settings.allowed_embed_domains.join("\n");
    main2.replaceChildren(
      h("h2", {}, "Settings"),
      form(
        "Embed domains",
        [labelled("Sites that may embed the public chats", domains, "One origin per line: https://shop.example.com or https://*.example.com.")],
        "Save domains",
        (values) => {
          const list = String(values.get("domains") ?? "").split(/\s+/).filter(Boolean);
          void send("POST", "/api/orgs/settings", { allowedEmbedDomains: list }).then((saved) => {
            domains.value = saved.allowed_embed_domains.join("\n");
            say2("Embed domains saved.");
          }).catch((error) => say2(explain(error)));
        }
      )
    );
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
  function el(tag, text3) {
    const node = document.createElement(tag);
    if (text3 !== void 0) node.textContent = text3;
    return node;
  }
  function link(text3, target) {
    const href = safeHref(target);
    if (!href) return document.createTextNode(text3);
    const a = el("a");
    a.href = href;
    a.rel = "noopener noreferrer nofollow";
    a.target = "_blank";
    appendInline(a, text3);
    return a;
  }
  var INLINE = /(`+)([\s\S]*?[^`])\1(?!`)|!\[([^\]]*)\]\(([^)\s]+)[^)]*\)|\[([^\]]+)\]\(([^)\s]+)[^)]*\)|\*\*([\s\S]+?)\*\*|__([\s\S]+?)__|~~([\s\S]+?)~~|\*([^*\s][^*]*?)\*|_([^_\s][^_]*?)_/g;
  function appendInline(parent, text3) {
    let at = 0;
    for (const match of text3.matchAll(INLINE)) {
      if (match.index > at) parent.appendChild(document.createTextNode(text3.slice(at, match.index)));
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
    if (at < text3.length) parent.appendChild(document.createTextNode(text3.slice(at)));
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
        const body2 = [];
        i += 1;
        while (i < lines.length && !(lines[i] ?? "").trim().startsWith(fence[1] ?? "```")) {
          body2.push(lines[i] ?? "");
          i += 1;
        }
        i += 1;
        const pre = el("pre");
        pre.appendChild(el("code", body2.join("\n")));
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
        const table2 = el("table");
        const head = el("thead");
        const row = el("tr");
        for (const cell of tableCells(line)) {
          const th = el("th");
          appendInline(th, cell);
          row.appendChild(th);
        }
        head.appendChild(row);
        table2.appendChild(head);
        const body2 = el("tbody");
        i += 2;
        while (i < lines.length && (lines[i] ?? "").includes("|") && (lines[i] ?? "").trim() !== "") {
          const tr = el("tr");
          for (const cell of tableCells(lines[i] ?? "")) {
            const td = el("td");
            appendInline(td, cell);
            tr.appendChild(td);
          }
          body2.appendChild(tr);
          i += 1;
        }
        table2.appendChild(body2);
        out.appendChild(table2);
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
      paragraph.forEach((text3, n) => {
        if (n > 0) p.appendChild(el("br"));
        appendInline(p, text3);
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
    const body2 = response.body;
    if (!body2) return;
    const reader = body2.pipeThrough(new TextDecoderStream()).getReader();
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

  // src/console/thread.ts
  async function threadView({ main: main2, params, signal, say: say2 }) {
    const id = params[0] ?? "";
    const thread = await get(`/api/threads/${id}`);
    let page = await get(`/api/threads/${id}/messages?limit=200`);
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
      stopButton
    );
    let running = null;
    const bubble = (role, sender) => {
      const node = h("div", { class: `message ${role}` }, sender ? h("div", { class: "sender" }, sender) : null, h("div", { class: "body" }));
      transcript.append(node);
      node.scrollIntoView({ block: "end" });
      return node;
    };
    const show = (role, content, sender) => {
      bubble(role, sender).querySelector(".body")?.replaceChildren(render(content));
    };
    const answer = () => new LiveAnswer(bubble("assistant", null), (node) => node.scrollIntoView({ block: "end" }));
    const apply = (event, live) => {
      const data = event.data ?? {};
      switch (event.event) {
        case "token":
          live.add(String(data.delta ?? ""));
          return false;
        case "queued":
          say2(`Queued (position ${String(data.position)}).`);
          return false;
        case "tool_call": {
          const tool = data.tool;
          say2(`Calling ${tool?.name ?? "a tool"}…`);
          return false;
        }
        case "error":
          say2(`${String(data.code)}: ${String(data.detail ?? "")}`);
          return false;
        case "done": {
          live.finish(typeof data.content === "string" ? data.content : null);
          const usage = data.usage;
          if (data.stopped) say2("Stopped.");
          else if (usage) say2(`Done: ${usage.model ?? ""}, ${usage.inputTokens ?? 0} in, ${usage.outputTokens ?? 0} out.`);
          return true;
        }
        default:
          return false;
      }
    };
    const busy = (on) => {
      sendButton.hidden = on;
      stopButton.hidden = !on;
    };
    const sendMessage = async () => {
      const content = message.value.trim();
      if (!content || running) return;
      message.value = "";
      show("user", content, null);
      running = new AbortController();
      busy(true);
      say2("Answering… (Escape stops)");
      try {
        const response = await request(`/api/threads/${id}/messages`, {
          method: "POST",
          body: JSON.stringify({ content }),
          signal: running.signal
        });
        const live = answer();
        let ended = false;
        await readEvents(response, (event) => {
          ended = apply(event, live) || ended;
        });
        if (!ended) live.finish(null);
      } catch (error) {
        if (!(error instanceof DOMException && error.name === "AbortError")) say2(explain(error));
      } finally {
        running = null;
        busy(false);
      }
    };
    const stop = () => {
      if (!running) return;
      void request(`/api/threads/${id}/stop`, { method: "POST", body: "{}" }).catch((error) => say2(explain(error)));
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
    const onEscape = (event) => {
      if (event.key === "Escape") stop();
    };
    document.addEventListener("keydown", onEscape);
    signal.addEventListener("abort", () => {
      document.removeEventListener("keydown", onEscape);
      running?.abort();
    });
    for (const m of page.messages) show(m.role, m.content, m.role === "user" ? m.sender_name : null);
    main2.replaceChildren(
      route("← Agent", `#/agents/${thread.agent_id}`),
      h("h2", {}, thread.title ?? `Thread ${id.slice(0, 8)}`),
      h("div", { class: "chat" }, transcript, composer)
    );
    message.focus();
    void follow(id, signal, (event, live) => {
      if (event.event === "meta") {
        if (running) return null;
        const user = event.data.userMessage;
        if (user) show("user", user.content, user.senderName);
        return answer();
      }
      if (live && !apply(event, live)) return live;
      return null;
    });
  }
  async function follow(thread, signal, onEvent) {
    try {
      const response = await request(`/api/threads/${thread}/stream?follow=true`, { signal });
      let live = null;
      await readEvents(response, (event) => {
        live = onEvent(event, live);
      }, signal);
    } catch {
    }
  }

  // src/console/tools.ts
  async function toolsView(context) {
    const { main: main2, say: say2 } = context;
    const [{ tools }, { mcps }] = await Promise.all([
      get("/api/tools"),
      get("/api/mcps")
    ]);
    const toolTable = tools.length ? table(
      "Webhook tools",
      ["Name", "Description", "URL", "Timeout"],
      tools.map((t) => [t.name, t.description || "—", t.url ?? "—", t.timeout_ms ? `${t.timeout_ms} ms` : "—"])
    ) : h("p", {}, "No webhook tool.");
    const mcpTable = mcps.length ? table(
      "MCP servers",
      ["Name", "Transport", "Status", "Tools", "Listed", ""],
      mcps.map((m) => [
        m.name,
        m.transport,
        h("span", { class: `badge ${m.status}` }, m.status, m.last_error ? ` (${m.last_error})` : ""),
        m.tools_cache.map((t) => t.name).join(", ") || "—",
        when(m.tools_refreshed_at),
        button(`Test ${m.name}`, () => {
          say2(`Testing ${m.name}…`);
          void send("POST", `/api/mcps/${m.id}/test`, {}).then((result) => {
            say2(result.ok ? `${m.name} answers.` : `${m.name}: ${result.error ?? "down"}`);
            return toolsView(context);
          }).catch((error) => say2(explain(error)));
        })
      ])
    ) : h("p", {}, "No MCP server.");
    main2.replaceChildren(h("h2", {}, "Tools"), h("h3", {}, "Webhook tools"), toolTable, h("h3", {}, "MCP servers"), mcpTable);
  }

  // src/console/main.ts
  var ROUTES = [
    [/^#\/agents\/([0-9a-f-]{36})$/, agentView, "Agent"],
    [/^#\/agents$/, agentsView, "Agents"],
    [/^#\/threads\/([0-9a-f-]{36})$/, threadView, "Thread"],
    [/^#\/tools$/, toolsView, "Tools"],
    [/^#\/logs\/([0-9a-f-]{36})$/, logView, "Trace"],
    [/^#\/logs$/, logsView, "Logs"],
    [/^#\/analytics$/, analyticsView, "Analytics"],
    [/^#\/settings$/, settingsView, "Settings"]
  ];
  var main = document.querySelector("main");
  var statusRegion = document.querySelector(".status");
  var nav = document.querySelector("nav.sections");
  var signOutButton = document.querySelector(".sign-out");
  var current = null;
  function say(text3) {
    if (statusRegion) statusRegion.textContent = text3;
  }
  function showSignIn(main2, note = "") {
    if (nav) nav.hidden = true;
    if (signOutButton) signOutButton.hidden = true;
    document.title = "Sign in · Confer console";
    const key = input("key", "", "password");
    key.autocomplete = "off";
    key.required = true;
    main2.replaceChildren(
      h("h2", {}, "Sign in"),
      h("p", {}, "Paste an API key. It is kept in this tab only and forgotten when the tab closes."),
      form("Sign in", [labelled("API key", key)], "Sign in", (values) => {
        signIn(String(values.get("key") ?? "").trim());
        void get("/api/agents").then(() => {
          if (location.hash === "" || location.hash === "#/") location.hash = "#/agents";
          else void showRoute();
        }).catch((error) => {
          if (apiKey()) signOut();
          showSignIn(main2, `Not signed in: ${explain(error)}`);
        });
      })
    );
    say(note);
    key.focus();
  }
  async function showRoute() {
    if (!main) return;
    current?.abort();
    current = new AbortController();
    if (!apiKey()) {
      showSignIn(main);
      return;
    }
    if (nav) nav.hidden = false;
    if (signOutButton) signOutButton.hidden = false;
    const found = ROUTES.map(([pattern, view2, title2]) => [pattern.exec(location.hash), view2, title2]).find(
      ([match2]) => match2
    );
    if (!found) {
      location.hash = "#/agents";
      return;
    }
    const [match, view, title] = found;
    document.title = `${title} · Confer console`;
    for (const link2 of nav?.querySelectorAll("a") ?? []) {
      const here = location.hash.startsWith(link2.getAttribute("href") ?? "-");
      if (here) link2.setAttribute("aria-current", "page");
      else link2.removeAttribute("aria-current");
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
})();
