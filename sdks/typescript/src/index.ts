// Confer's TypeScript SDK (sdks.md): the generated operations and types,
// a configured client for them, and the typed, resumable event streams.
//
//   const confer = new Confer({ baseUrl: "http://127.0.0.1:8080", apiKey: "cfr_…" });
//   for await (const event of confer.stream(threadId, { content: "Hello" })) { … }

import { type Client, createClient, createConfig } from "./generated/client/index.js";
import type { DoneEvent, ErrorEvent, SendMessage, VisitorSend } from "./generated/types.gen.js";
import { ConferError } from "./errors.js";
import {
  events,
  Resume,
  type RunEventsOptions,
  type StreamEvent,
  type StreamOptions,
  threadRoute,
  type WatchOptions,
} from "./stream.js";
import { VERSION } from "./version.js";

export * from "./generated/sdk.gen.js";
export type * from "./generated/types.gen.js";
export { ConferConnectionError, ConferError, StreamGapError } from "./errors.js";
export { EVENT_NAMES, type EventDataMap } from "./events.js";
export type { RunEventsOptions, StreamEvent, StreamOptions, WatchOptions } from "./stream.js";
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
    return this.sendOn(threadRoute(threadId), body, options);
  }

  /** Reads a thread's running turn (or, with `follow`, every turn). */
  watch(threadId: string, options: WatchOptions = {}): AsyncGenerator<StreamEvent> {
    return this.watchOn(threadRoute(threadId), options);
  }

  /** `stream` on a public chat's thread (`/api/public/chat/{slug}/…`);
   * construct this client with the visitor's token (`token: () => cfv`). */
  publicStream(
    slug: string,
    threadId: string,
    body: VisitorSend,
    options: StreamOptions = {},
  ): AsyncGenerator<StreamEvent> {
    return this.sendOn(threadRoute(threadId, slug), body, options);
  }

  /** `watch` on a public chat's thread. */
  publicWatch(slug: string, threadId: string, options: WatchOptions = {}): AsyncGenerator<StreamEvent> {
    return this.watchOn(threadRoute(threadId, slug), options);
  }

  /** A run's events: `watching`, the `run`, its turns' frames and its
   * `run_status` changes, until the run ends. */
  runEvents(runnerId: string, runId: string, options: RunEventsOptions = {}): AsyncGenerator<StreamEvent> {
    const route = {
      run: `/api/runners/${encodeURIComponent(runnerId)}/runs/${encodeURIComponent(runId)}/events`,
    };
    const state = new Resume(route, undefined, undefined, true, options.lastEventId);
    return events(this.transport(), state, options.maxReconnects, options.signal);
  }

  /** A button run's public events (`token`, `run_status`, `error`,
   * `done`), opened by the `view_token` that `runnerButtonRun` answered;
   * no credential needed. */
  buttonEvents(
    runnerId: string,
    runId: string,
    viewToken: string,
    options: RunEventsOptions = {},
  ): AsyncGenerator<StreamEvent> {
    const path = `/api/runners/${encodeURIComponent(runnerId)}/button/runs/${encodeURIComponent(runId)}/events`;
    const route = { run: `${path}?viewToken=${encodeURIComponent(viewToken)}` };
    const state = new Resume(route, undefined, undefined, true, options.lastEventId);
    return events(this.transport(), state, options.maxReconnects, options.signal);
  }

  private sendOn(route: ReturnType<typeof threadRoute>, body: unknown, options: StreamOptions) {
    const key = options.idempotencyKey ?? crypto.randomUUID();
    const state = new Resume(route, body, key, false, undefined);
    return events(this.transport(), state, options.maxReconnects, options.signal);
  }

  private watchOn(route: ReturnType<typeof threadRoute>, options: WatchOptions) {
    const state = new Resume(route, undefined, undefined, options.follow ?? false, options.lastEventId);
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
      headers: async (): Promise<Record<string, string>> => {
        const token = await this.token();
        const headers: Record<string, string> = { "User-Agent": `confer-sdk-ts/${VERSION}` };
        // None when empty: the public chat's routes before a visitor has a token.
        if (token) headers.Authorization = `Bearer ${token}`;
        return headers;
      },
    };
  }
}
