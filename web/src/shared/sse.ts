// Server-Sent Events over fetch (publishing.md "Pages" rule 3): the page
// sends its token in a header, which EventSource cannot, and reads the
// stream itself. One event per blank line; `id:`, `event:` and `data:`
// lines; comments (keep-alives) skipped.

/** One event of a thread's stream. */
export interface StreamEvent {
  id: string | null;
  event: string;
  data: unknown;
}

/** Splits SSE text into events; keeps the unfinished tail for the next chunk. */
export class SseParser {
  private buffer = "";

  /** The events completed by `chunk`. */
  push(chunk: string): StreamEvent[] {
    this.buffer += chunk;
    const events: StreamEvent[] = [];
    for (;;) {
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
}

function parseBlock(block: string): StreamEvent | null {
  let id: string | null = null;
  let event = "message";
  const data: string[] = [];
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
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.join("\n"));
  } catch {
    parsed = data.join("\n");
  }
  return { id, event, data: parsed };
}

/** Reads `response`'s body as SSE, calling `onEvent` for each event. */
export async function readEvents(
  response: Response,
  onEvent: (event: StreamEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
  const body = response.body;
  if (!body) return;
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser();
  try {
    for (;;) {
      if (signal?.aborted) break;
      const { done, value } = await reader.read();
      if (done) break;
      for (const event of parser.push(value)) onEvent(event);
    }
  } finally {
    reader.releaseLock();
  }
}
