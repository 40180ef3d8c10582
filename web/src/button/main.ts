// A runner's button page (runners.md "Button page and embed.js"): a form
// built from the runner's input schema (string, enum, boolean and number
// fields as inputs, anything else as a JSON textarea), its suggestions as
// chips that fill the form, and the run's answer streamed from its public
// events: text through the safe Markdown renderer, JSON pretty-printed.
// The configuration comes in the page itself (a JSON data block, never
// executed), so the page makes no request until the visitor runs it.

import { failure } from "../shared/errors";
import { LiveAnswer } from "../shared/live";
import { readEvents, type StreamEvent } from "../shared/sse";

interface Schema {
  type?: string | string[];
  title?: string;
  description?: string;
  enum?: unknown[];
  default?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
}

interface Config {
  runner_id: string;
  title: string;
  description: string | null;
  input_schema: Schema;
  output_mode: "text" | "json";
  suggestions: { label: string; input: Record<string, unknown> }[];
}

interface RunStatus {
  status: string;
  statusReason: string | null;
  output?: unknown;
  error?: { code: string; detail: string };
}

const TERMINAL = new Set(["succeeded", "failed", "cancelled", "expired"]);

const $ = <T extends Element>(selector: string): T => {
  const found = document.querySelector<T>(selector);
  if (!found) throw new Error(`missing ${selector}`);
  return found;
};

const config = JSON.parse($<HTMLScriptElement>("#config").textContent ?? "{}") as Config;
const form = $<HTMLFormElement>(".run-form");
const fieldsBox = $<HTMLDivElement>(".fields");
const submit = $<HTMLButtonElement>(".submit");
const statusRegion = $<HTMLDivElement>(".status");
const output = $<HTMLElement>(".output");
const chips = $<HTMLUListElement>(".suggestions");
const embedded = new URLSearchParams(location.search).get("embed") === "1";
const base = `/api/runners/${encodeURIComponent(config.runner_id)}/button`;

function say(text: string): void {
  statusRegion.textContent = text;
}

/** One form field and how to read and fill it. */
interface Field {
  name: string;
  required: boolean;
  read(): unknown;
  fill(value: unknown): void;
}

function kindOf(schema: Schema): "enum" | "string" | "boolean" | "number" | "integer" | "json" {
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === "string")) return "enum";
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (type === "string" || type === "boolean" || type === "number" || type === "integer") return type;
  return "json";
}

function field(name: string, schema: Schema, required: boolean, index: number): Field {
  const kind = kindOf(schema);
  const wrap = document.createElement("div");
  wrap.className = `field ${kind}`;
  const id = `field-${index}`;
  const label = document.createElement("label");
  label.htmlFor = id;
  label.textContent = (schema.title ?? name) + (required ? " *" : "");
  let control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  if (kind === "enum") {
    const select = document.createElement("select");
    if (!required) select.append(new Option("", ""));
    for (const value of schema.enum as string[]) select.append(new Option(value, value));
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
  if (required && kind !== "boolean") control.required = true;
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

  const read = (): unknown => {
    if (control instanceof HTMLInputElement && kind === "boolean") return control.checked;
    const text = control.value;
    if (text.trim() === "") {
      if (required) throw new Error(`${schema.title ?? name}: required`);
      return undefined;
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
  const fill = (value: unknown): void => {
    if (control instanceof HTMLInputElement && kind === "boolean") control.checked = value === true;
    else if (value === undefined || value === null) control.value = "";
    else if (kind === "json") control.value = JSON.stringify(value, null, 2);
    else control.value = String(value);
  };
  if (schema.default !== undefined) fill(schema.default);
  return { name, required, read, fill };
}

// The stored schema's properties come sorted by name (JSON objects keep no
// order there), so the required fields lead, in `required`'s order.
const properties = config.input_schema.properties ?? {};
const requiredNames = (config.input_schema.required ?? []).filter((name) => name in properties);
const required = new Set(requiredNames);
const ordered = [...requiredNames, ...Object.keys(properties).filter((name) => !required.has(name))];
const fields = ordered.map((name, i) => field(name, properties[name] ?? {}, required.has(name), i));

document.title = config.title;
$<HTMLHeadingElement>(".title").textContent = config.title;
if (config.description) {
  const description = $<HTMLParagraphElement>(".description");
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

function readInput(): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const f of fields) {
    const value = f.read();
    if (value !== undefined) input[f.name] = value;
  }
  return input;
}

/** Shows a finished run's output: JSON pretty-printed, text as Markdown. */
function show(live: LiveAnswer, value: unknown): void {
  if (config.output_mode === "json") {
    const pre = document.createElement("pre");
    pre.textContent = JSON.stringify(value, null, 2);
    live.finish("");
    output.querySelector(".body")?.replaceChildren(pre);
  } else {
    live.finish(typeof value === "string" ? value : null);
  }
}

async function run(input: Record<string, unknown>): Promise<void> {
  const started = await fetch(base, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input }),
  });
  if (!started.ok) throw await failure(started);
  const { run_id, view_token } = (await started.json()) as { run_id: string; view_token: string };
  output.hidden = false;
  const live = new LiveAnswer(output);
  say("Running…");
  const events = await fetch(
    `${base}/runs/${encodeURIComponent(run_id)}/events?viewToken=${encodeURIComponent(view_token)}`,
  );
  if (!events.ok) throw await failure(events);
  let ended = false;
  await readEvents(events, (event: StreamEvent) => {
    if (event.event === "token") {
      live.add((event.data as { delta: string }).delta);
    } else if (event.event === "error") {
      say((event.data as { detail?: string }).detail ?? "The run failed.");
    } else if (event.event === "run_status") {
      const status = event.data as RunStatus;
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
  let input: Record<string, unknown>;
  try {
    input = readInput();
  } catch (error) {
    say((error as Error).message);
    return;
  }
  submit.disabled = true;
  run(input)
    .catch((error: unknown) => say((error as Error).message || "The run could not start."))
    .finally(() => {
      submit.disabled = false;
    });
});

if (embedded) {
  window.parent.postMessage({ type: "confer:ready", title: config.title }, "*");
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") window.parent.postMessage({ type: "confer:close" }, "*");
  });
}
