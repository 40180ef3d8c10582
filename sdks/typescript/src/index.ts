// Confer's TypeScript SDK (sdks.md): the generated operations and types,
// a configured client for them, and the typed, resumable event streams.
//
//   const confer = new Confer({ baseUrl: "http://127.0.0.1:8080", apiKey: "cfr_…" });
//   for await (const event of confer.stream(threadId, { content: "Hello" })) { … }

import { type Client, createClient, createConfig } from "./generated/client/index.js";
import type { DoneEvent, ErrorEvent, SendMessage } from "./generated/types.gen.js";
import { ConferError } from "./errors.js";
import { events, Resume, type StreamEvent, type StreamOptions, type WatchOptions } from "./stream.js";
import { VERSION } from "./version.js";

export * from "./generated/sdk.gen.js";
export type * from "./generated/types.gen.js";
export { ConferConnectionError, ConferError, StreamGapError } from "./errors.js";
export { EVENT_NAMES, type EventDataMap } from "./events.js";
export type { StreamEvent, StreamOptions, WatchOptions } from "./stream.js";
export { VERSION } from "./version.js";

/** How to reach Confer. */
export interface ConferOptions {
  baseUrl: string;
  /** An API key (`cfr_…`); or `token`, asked before every request. */
  apiKey?: string;
  token?: () => string | Promise<string>;
  fetch?: typeof fetch;
}

/** What `send()` returns: the turn's `done`, and its `error` if one came. */
export interface SendResult {
  done: DoneEvent;
  error?: ErrorEvent;
}

/** A Confer server, called with one API key or token source. */
export class Confer {
  /** The generated client, configured: pass it as `client` to any
   * generated operation. Every non-2xx answer throws ConferError. */
  readonly client: Client;
  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;
  private readonly token: () => string | Promise<string>;

  constructor(options: ConferOptions) {
    const { apiKey, token } = options;
    if (apiKey === undefined && token === undefined) throw new TypeError("Confer needs apiKey or token");
    this.token = token ?? (() => apiKey!);
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.client = createClient(
      createConfig({
        baseUrl: this.baseUrl,
        fetch: this.fetch,
        auth: () => this.token(),
        throwOnError: true,
        headers: { "User-Agent": `confer-sdk-ts/${VERSION}` },
      }),
    );
    this.client.interceptors.error.use((error, response) =>
      response ? ConferError.fromAnswer(response.status, response.headers, error) : error,
    );
  }

  /** Sends a message and yields its turn's events, through to `done`. */
  stream(threadId: string, body: SendMessage, options: StreamOptions = {}): AsyncGenerator<StreamEvent> {
    const key = options.idempotencyKey ?? crypto.randomUUID();
    const state = new Resume(threadId, body, key, false, undefined);
    return events(this.transport(), state, options.maxReconnects, options.signal);
  }

  /** Reads a thread's running turn (or, with `follow`, every turn). */
  watch(threadId: string, options: WatchOptions = {}): AsyncGenerator<StreamEvent> {
    const state = new Resume(threadId, undefined, undefined, options.follow ?? false, options.lastEventId);
    return events(this.transport(), state, options.maxReconnects, options.signal);
  }

  /** Sends a message and returns its `done` (and `error`, if one came). */
  async send(threadId: string, body: SendMessage, options: StreamOptions = {}): Promise<SendResult> {
    let done: DoneEvent | undefined;
    let error: ErrorEvent | undefined;
    for await (const event of this.stream(threadId, body, options)) {
      if (event.event === "error") error = event.data;
      if (event.event === "done") done = event.data;
    }
    if (done === undefined) throw new ConferError(0, "CONNECTION_LOST", "the stream ended without done");
    return error === undefined ? { done } : { done, error };
  }

  private transport() {
    return {
      baseUrl: this.baseUrl,
      fetch: this.fetch,
      headers: async () => ({
        Authorization: `Bearer ${await this.token()}`,
        "User-Agent": `confer-sdk-ts/${VERSION}`,
      }),
    };
  }
}
