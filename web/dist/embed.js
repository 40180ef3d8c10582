"use strict";
(() => {
  // src/embed/embed.ts
  var script = document.currentScript;
  function target(src) {
    const chat = /^\/c\/([^/]+)\/embed\.js$/.exec(src.pathname);
    if (chat) {
      const slug = chat[1] ?? "";
      const page = `${src.origin}/c/${encodeURIComponent(slug)}?embed=1`;
      return { marker: `data-confer-chat-${slug}`, page, noun: "chat" };
    }
    const runner = /^\/api\/runners\/([0-9a-f-]+)\/embed\.js$/.exec(src.pathname);
    if (runner) {
      const id = runner[1] ?? "";
      return {
        marker: `data-confer-runner-${id}`,
        page: `${src.origin}/api/runners/${id}/button?embed=1`,
        noun: "run"
      };
    }
    return null;
  }
  function boot(script2) {
    const src = new URL(script2.src);
    const embeds = target(src);
    if (!embeds) return;
    const origin = src.origin;
    const { marker, noun, page } = embeds;
    if (document.documentElement.hasAttribute(marker)) return;
    document.documentElement.setAttribute(marker, "");
    const position = script2.dataset.position === "left" ? "left" : "right";
    let userToken = script2.dataset.userToken ?? null;
    const host = document.createElement("div");
    const root = host.attachShadow({ mode: "closed" });
    const style = document.createElement("style");
    style.textContent = `
    .launcher { position: fixed; bottom: 20px; ${position}: 20px; z-index: 2147483000;
      width: 56px; height: 56px; border-radius: 50%; border: none; cursor: pointer;
      background: #2563eb; color: #fff; font: 600 15px/1 system-ui, sans-serif;
      box-shadow: 0 4px 14px rgba(0,0,0,.25); }
    .launcher:focus-visible { outline: 3px solid #111827; outline-offset: 3px; }
    .frame { position: fixed; bottom: 88px; ${position}: 20px; z-index: 2147483000;
      width: 400px; height: 640px; max-height: calc(100vh - 108px); border: none;
      border-radius: 12px; box-shadow: 0 8px 30px rgba(0,0,0,.3); background: #fff; }
    @media (max-width: 480px) {
      .frame { inset: 0; width: 100vw; height: 100vh; max-height: none; border-radius: 0; }
    }
    [hidden] { display: none !important; }`;
    const button = document.createElement("button");
    button.className = "launcher";
    button.type = "button";
    button.textContent = noun === "chat" ? "Chat" : "Run";
    button.setAttribute("aria-expanded", "false");
    root.append(style, button);
    const fallback = noun === "chat" ? "Chat" : "Run";
    function name(title) {
      button.setAttribute("aria-label", title ? `Open ${noun}: ${title}` : `Open ${noun}`);
      if (frame) frame.title = title || fallback;
    }
    let frame = null;
    name(script2.dataset.title ?? "");
    function identifyFrame() {
      if (frame?.contentWindow && userToken) {
        frame.contentWindow.postMessage({ type: "confer:identify", userToken }, origin);
      }
    }
    function open() {
      if (!frame) {
        frame = document.createElement("iframe");
        frame.className = "frame";
        frame.title = button.getAttribute("aria-label")?.replace(/^Open \w+: /, "") || fallback;
        frame.setAttribute(
          "sandbox",
          "allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox"
        );
        frame.src = page;
        root.appendChild(frame);
      }
      frame.hidden = false;
      button.setAttribute("aria-expanded", "true");
    }
    function close() {
      if (frame) frame.hidden = true;
      button.setAttribute("aria-expanded", "false");
      button.focus();
    }
    button.addEventListener("click", () => {
      if (button.getAttribute("aria-expanded") === "true") close();
      else open();
    });
    window.addEventListener("message", (event) => {
      if (!frame || event.source !== frame.contentWindow || event.origin !== origin) return;
      const data = event.data;
      if (data?.type === "confer:ready") {
        if (typeof data.title === "string") name(data.title);
        identifyFrame();
      }
      if (data?.type === "confer:close") close();
    });
    window.ConferChat = {
      open,
      close,
      identify(token) {
        userToken = token;
        identifyFrame();
      }
    };
    document.body.appendChild(host);
    if (script2.dataset.open === "true") open();
  }
  if (script) {
    if (document.body) boot(script);
    else document.addEventListener("DOMContentLoaded", () => boot(script));
  }
})();
