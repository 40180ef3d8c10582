// Typed, resumable event streams (sdks.md "Stream rules").
//
// Every SSE route's events (a thread's send and stream, their public-chat
// twins, a run's events) are parsed with eventsource-parser and yielded as
// StreamEvents whose `data` is the generated type of the event. When the
// connection drops, the stream is re-made where it stopped: by re-POSTing
// the send with the same Idempotency-Key while no frame has arrived, else
// by the route that resumes it with `Last-Event-ID`. Frames already
// yielded are dropped by id, so each is yielded once.
//
// `Resume` holds those rules; `events()` only does I/O.

import { createParser, type EventSourceMessage } from "eventsource-parser";

import { ConferConnectionError, ConferError, StreamGapError } from "./errors.js";
import { EVENT_NAMES, type EventDataMap } from "./events.js";

/** One event: its name, its id (`T.N`, or undefined), and its typed data.
 * Discriminated by `event`; an event this SDK does not know (a newer
 * server) is `{event: "unknown", name, id, data}`. */
export type StreamEvent =
  | {
      [K in keyof EventDataMap]: { event: K; id: string | undefined; data: EventDataMap[K] };
    }[keyof EventDataMap]
  | { event: "unknown"; name: string; id: string | undefined; data: unknown };

/** Options of `stream()`. */
export interface StreamOptions {
  /** Sent as `Idempotency-Key`; a new UUIDv4 when absent. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** Failures in a row before ConferConnectionError (5). */
  maxReconnects?: number;
}

/** Options of `watch()`. */
export interface WatchOptions {
  /** Every turn, until the caller stops reading. */
  follow?: boolean;
  /** Resume after this id (`T.N`). */
  lastEventId?: string;
  signal?: AbortSignal;
  maxReconnects?: number;
}

/** Options of `runEvents()`. */
export interface RunEventsOptions {
  /** Resume after this id (`T.N`). */
  lastEventId?: string;
  signal?: AbortSignal;
  maxReconnects?: number;
}

/** How the stream reaches the server: Confer's base URL, fetch and headers. */
export interface Transport {
  baseUrl: string;
  fetch: typeof fetch;
  headers(): Promise<Record<string, string>>;
}

const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 4000;
/** Codes whose `Retry-After` the stream waits out before trying again. */
const RETRYABLE = new Set([
  "OWNER_UNAVAILABLE",
  "SHUTTING_DOWN",
  "RATE_LIMITED",
  "THREAD_QUEUE_FULL",
  "ORG_QUEUE_FULL",
]);
const KNOWN: ReadonlySet<string> = new Set(EVENT_NAMES);

type FrameId = [number, number];

function frameId(text: string): FrameId | undefined {
  const [turn, n] = text.split(".").map(Number);
  return Number.isInteger(turn) && Number.isInteger(n) ? [turn!, n!] : undefined;
}

function after(a: FrameId, b: FrameId): boolean {
  return a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);
}

function typed(message: EventSourceMessage): StreamEvent {
  const name = message.event ?? "message";
  let data: unknown = message.data;
  try {
    data = message.data === "" ? null : JSON.parse(message.data);
  } catch {
    // Kept as text.
  }
  if (!KNOWN.has(name)) return { event: "unknown", name, id: message.id, data };
  return { event: name, id: message.id, data } as StreamEvent;
}

/** Where a stream is read: a thread's (`/api/threads/{id}`, or a public
 * chat's twin), whose send POSTs to `messages` and which resumes from
 * `stream`; or a run's events route, which resumes itself and ends with
 * the run. */
export type Route = { thread: string } | { run: string };

/** A thread's base path. */
export function threadRoute(threadId: string, publicSlug?: string): { thread: string } {
  const thread = `/api/threads/${encodeURIComponent(threadId)}`;
  if (publicSlug === undefined) return { thread };
  return { thread: `/api/public/chat/${encodeURIComponent(publicSlug)}${thread.slice(4)}` };
}

const ENDED = new Set(["succeeded", "failed", "cancelled", "expired"]);

/** The state of one stream across its connections (rules 1-6). */
export class Resume {
  private last: FrameId | undefined;
  private metaTurn: number | undefined;
  private repost = false;
  /** A run's stream saw its run end: the server closes it next. */
  private runEnded = false;
  finished = false;

  constructor(
    readonly route: Route,
    readonly body: unknown,
    readonly key: string | undefined,
    readonly follow: boolean,
    private lastRaw: string | undefined,
  ) {
    this.last = lastRaw ? frameId(lastRaw) : undefined;
  }

  get sending(): boolean {
    return this.body !== undefined;
  }

  /** The next request: the send (again), or a reattach. */
  request(): { method: string; path: string; headers: Record<string, string>; body?: string } {
    if ("run" in this.route) {
      const headers: Record<string, string> = { Accept: "text/event-stream" };
      if (this.lastRaw) headers["Last-Event-ID"] = this.lastRaw;
      return { method: "GET", path: this.route.run, headers };
    }
    const path = this.route.thread;
    if (this.sending && (this.last === undefined || this.repost)) {
      this.repost = false;
      return {
        method: "POST",
        path: `${path}/messages`,
        headers: {
          "Content-Type": "application/json",
          Accept: "text/event-stream",
          "Idempotency-Key": this.key ?? "",
        },
        body: JSON.stringify(this.body),
      };
    }
    const headers: Record<string, string> = { Accept: "text/event-stream" };
    if (this.lastRaw) headers["Last-Event-ID"] = this.lastRaw;
    return { method: "GET", path: `${path}/stream${this.follow ? "?follow=true" : ""}`, headers };
  }

  /** A 204 from the reattach: whether to try again (a send re-POSTs). */
  noTurn(): boolean {
    if (this.sending) {
      this.repost = true;
      return true;
    }
    this.finished = true;
    return false;
  }

  /** What a non-2xx answer means: a wait in ms before trying again, or it
   * is thrown. */
  refused(error: ConferError): number {
    if (error instanceof StreamGapError && this.sending) {
      this.repost = true;
      return 0;
    }
    if (RETRYABLE.has(error.error) && error.retryAfter !== null) return error.retryAfter * 1000;
    throw error;
  }

  /** The frame to yield, or undefined for one already seen. */
  admit(message: EventSourceMessage): StreamEvent | undefined {
    const id = message.id ? frameId(message.id) : undefined;
    if (id !== undefined) {
      if (this.last !== undefined && !after(id, this.last)) return undefined;
      this.last = id;
      this.lastRaw = message.id;
    }
    const event = typed(message);
    if (event.event === "meta" && id !== undefined) {
      if (id[0] === this.metaTurn) return undefined;
      this.metaTurn = id[0];
    }
    if (event.event === "done" && (this.sending || !this.follow) && !("run" in this.route)) {
      this.finished = true;
    }
    if (event.event === "run" || event.event === "run_status") {
      const status = (event.data as { status?: unknown } | null)?.status;
      if (typeof status === "string" && ENDED.has(status)) this.runEnded = true;
    }
    return event;
  }

  /** The body ended: whether that is the stream's end (a run's, after its
   * run ended) rather than a dropped connection. */
  endOfBody(): boolean {
    this.finished ||= this.runEnded;
    return this.finished;
  }
}

function backoff(failures: number): number {
  return Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, failures - 1));
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}

/** Reads one response's events as they arrive. */
async function* frames(response: Response): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => pending.push(message) });
  const decoder = new TextDecoder();
  const reader = response.body!.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      yield* pending.splice(0);
    }
  } finally {
    // Closes the connection when the caller stops early (after `done`).
    await reader.cancel().catch(() => undefined);
  }
}

/** The stream's connections, one after another, until it finishes. */
export async function* events(
  transport: Transport,
  state: Resume,
  maxReconnects = 5,
  signal?: AbortSignal,
): AsyncGenerator<StreamEvent> {
  let failures = 0;
  for (;;) {
    const { method, path, headers, body } = state.request();
    let wait: number | undefined;
    let cause: unknown;
    try {
      const response = await transport.fetch(`${transport.baseUrl}${path}`, {
        method,
        headers: { ...(await transport.headers()), ...headers },
        body,
        signal,
      });
      if (response.status === 204) {
        if (!state.noTurn()) return;
        continue;
      }
      if (!response.ok) throw await ConferError.fromResponse(response);
      for await (const message of frames(response)) {
        const event = state.admit(message);
        if (event !== undefined) {
          failures = 0;
          yield event;
        }
        if (state.finished) return;
      }
      if (state.endOfBody()) return;
    } catch (error) {
      if (signal?.aborted) throw error;
      if (error instanceof ConferError) wait = state.refused(error);
      cause = error;
    }
    failures += 1;
    if (failures > maxReconnects) {
      throw new ConferConnectionError(
        `the stream's connection was lost ${failures} times in a row`,
        cause,
      );
    }
    await sleep(wait ?? backoff(failures), signal);
  }
}
