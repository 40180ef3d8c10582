// Building the console's elements: createElement and textContent only, never
// an HTML string (its Trusted Types policy makes every HTML sink throw).

type Child = Node | string | null | undefined | false;

/** An element with attributes (`class`, `for`, `aria-*`…) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | boolean | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child);
  }
  return node;
}

/** A table of `rows` under `headers`; a cell is text or a node. */
export function table(caption: string, headers: string[], rows: Child[][]): HTMLTableElement {
  return h(
    "table",
    {},
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, ...headers.map((name) => h("th", { scope: "col" }, name)))),
    h("tbody", {}, ...rows.map((row) => h("tr", {}, ...row.map((cell) => h("td", {}, cell))))),
  );
}

let fields = 0;

/** A labelled control: `<label for>` and the control with a fresh id. */
export function labelled(label: string, control: HTMLElement, hint?: string): HTMLDivElement {
  fields += 1;
  const id = `field-${fields}`;
  control.id = id;
  const note = hint ? h("small", { id: `${id}-hint` }, hint) : null;
  if (note) control.setAttribute("aria-describedby", note.id);
  return h("div", { class: "field" }, h("label", { for: id }, label), control, note);
}

/** A text input with a value. */
export function input(name: string, value = "", type = "text"): HTMLInputElement {
  const node = h("input", { name, type });
  node.value = value;
  return node;
}

/** A select of `options` ([value, label]) with `value` chosen. */
export function select(name: string, options: [string, string][], value: string): HTMLSelectElement {
  const node = h("select", { name }, ...options.map(([v, text]) => h("option", { value: v }, text)));
  node.value = value;
  return node;
}

/** A button that runs `action`. */
export function button(text: string, action: () => void, kind = "button"): HTMLButtonElement {
  const node = h("button", { type: kind }, text);
  if (kind === "button") node.addEventListener("click", action);
  return node;
}

/** A link to a console route. */
export function route(text: string, hash: string): HTMLAnchorElement {
  return h("a", { href: hash }, text);
}

/** A form that calls `submit` with its values. */
export function form(
  label: string,
  controls: Node[],
  submitText: string,
  submit: (values: FormData) => void,
): HTMLFormElement {
  const node = h("form", { "aria-label": label }, ...controls, h("button", { type: "submit" }, submitText));
  node.addEventListener("submit", (event) => {
    event.preventDefault();
    submit(new FormData(node));
  });
  return node;
}

/** A readable date and time, or a dash. */
export function when(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : "—";
}

/** A number with separators, or a dash. */
export function count(value: number | null | undefined, digits = 0): string {
  return value === null || value === undefined
    ? "—"
    : value.toLocaleString(undefined, { maximumFractionDigits: digits });
}
