// Markdown to DOM (publishing.md "Pages" rule 5): paragraphs, headings,
// emphasis, strikethrough, code spans and fences, lists, quotes, GFM tables
// and links, built with createElement and textContent only, never an HTML
// string (the page's Trusted Types policy makes every HTML sink throw).
// Raw HTML stays text; links are http, https or mailto only and open in a
// new tab without a referrer; images become links and are never fetched.

const SAFE_SCHEMES = ["http:", "https:", "mailto:"];

/** The href of a link target, if its scheme is allowed. */
export function safeHref(target: string): string | null {
  const trimmed = target.trim();
  try {
    const url = new URL(trimmed, "https://invalid.invalid/");
    if (!SAFE_SCHEMES.includes(url.protocol)) return null;
    // A relative target would resolve against the page: refuse it.
    if (url.host === "invalid.invalid") return null;
    return url.href;
  } catch {
    return null;
  }
}

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  return node;
}

function link(text: string, target: string): Node {
  const href = safeHref(target);
  if (!href) return document.createTextNode(text);
  const a = el("a");
  a.href = href;
  a.rel = "noopener noreferrer nofollow";
  a.target = "_blank";
  appendInline(a, text);
  return a;
}

/** Inline markup: code spans, images (as links), links, strong, em, strike. */
const INLINE =
  /(`+)([\s\S]*?[^`])\1(?!`)|!\[([^\]]*)\]\(([^)\s]+)[^)]*\)|\[([^\]]+)\]\(([^)\s]+)[^)]*\)|\*\*([\s\S]+?)\*\*|__([\s\S]+?)__|~~([\s\S]+?)~~|\*([^*\s][^*]*?)\*|_([^_\s][^_]*?)_/g;

/** Appends `text`'s inline markup to `parent`. */
export function appendInline(parent: Node, text: string): void {
  let at = 0;
  // matchAll scans a copy of the pattern: the recursive calls below cannot
  // move this loop's place (a shared `lastIndex` made it loop forever).
  for (const match of text.matchAll(INLINE)) {
    if (match.index > at) parent.appendChild(document.createTextNode(text.slice(at, match.index)));
    at = match.index + match[0].length;
    const [, , code, imageAlt, imageSrc, linkText, linkHref, strong1, strong2, strike, em1, em2] =
      match;
    if (code !== undefined) {
      parent.appendChild(el("code", code.trim()));
    } else if (imageSrc !== undefined) {
      parent.appendChild(link(imageAlt || imageSrc, imageSrc));
    } else if (linkText !== undefined && linkHref !== undefined) {
      parent.appendChild(link(linkText, linkHref));
    } else if (strong1 !== undefined || strong2 !== undefined) {
      const node = el("strong");
      appendInline(node, strong1 ?? strong2 ?? "");
      parent.appendChild(node);
    } else if (strike !== undefined) {
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

function tableCells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split("|")
    .map((cell) => cell.trim());
}

const FENCE = /^\s*(```|~~~)/;
const HEADING = /^(#{1,6})\s+(.*)$/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*\d+[.)]\s+(.*)$/;
const QUOTE = /^\s*>\s?(.*)$/;
const TABLE_RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

/** Renders `source` as a fragment of safe elements. */
export function render(source: string): DocumentFragment {
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
      const body: string[] = [];
      i += 1;
      while (i < lines.length && !(lines[i] ?? "").trim().startsWith(fence[1] ?? "```")) {
        body.push(lines[i] ?? "");
        i += 1;
      }
      i += 1; // the closing fence (or the end of an unfinished one)
      const pre = el("pre");
      pre.appendChild(el("code", body.join("\n")));
      out.appendChild(pre);
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const level = Math.min(6, (heading[1] ?? "#").length);
      const node = el(`h${level}` as "h1");
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
      const quoted: string[] = [];
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
    const paragraph: string[] = [];
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
