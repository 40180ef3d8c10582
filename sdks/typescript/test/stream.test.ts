// The stream rules of sdks.md on `Resume` alone (no server): ids compared
// as (turn, n), repeats dropped, id-less frames kept, one `meta` per turn,
// unknown events yielded, and what each answer makes it do.

import assert from "node:assert/strict";
import { test } from "node:test";

import { ConferError, StreamGapError } from "../src/errors.js";
import { Resume, threadRoute } from "../src/stream.js";

const frame = (event: string, data: unknown, id?: string) => ({ event, data: JSON.stringify(data), id });

test("frames are yielded once by id, and id-less ones always", () => {
  const state = new Resume(threadRoute("t"), { content: "x" }, "key", false, undefined);
  assert.equal(state.admit(frame("meta", {}, "2.0"))?.id, "2.0");
  const token = state.admit(frame("token", { delta: "a" }, "2.1"));
  assert.ok(token && token.event === "token" && token.data.delta === "a");
  assert.equal(state.admit(frame("token", { delta: "a" }, "2.1")), undefined);
  assert.ok(state.admit(frame("token", { delta: "b" }, "2.10")), "(2, 10) is after (2, 9)");
  assert.equal(state.admit(frame("token", { delta: "c" }, "2.9")), undefined);
  const idless = state.admit(frame("queued", { position: 1 }));
  assert.ok(idless && idless.id === undefined);
  assert.equal(state.request().headers["Last-Event-ID"], "2.10", "the id-less frame moved nothing");
});

test("a second meta of a turn is dropped, and done ends a send", () => {
  const state = new Resume(threadRoute("t"), { content: "x" }, "key", false, undefined);
  assert.ok(state.admit(frame("meta", {}, "3.0")));
  assert.equal(state.admit(frame("meta", {}, "3.0")), undefined);
  assert.ok(state.admit(frame("done", { ok: true, content: "hi" }, "3.4")));
  assert.equal(state.finished, true);
});

test("an unknown event is yielded with its name", () => {
  const state = new Resume(threadRoute("t"), undefined, undefined, true, undefined);
  const event = state.admit(frame("brand_new", { x: 1 }, "1.1"));
  assert.ok(event && event.event === "unknown");
  assert.deepEqual([event.name, event.data], ["brand_new", { x: 1 }]);
});

test("a send re-POSTs with its key, then reattaches after the last id", () => {
  const state = new Resume(threadRoute("t"), { content: "x" }, "key-1", false, undefined);
  const first = state.request();
  assert.deepEqual([first.method, first.path, first.headers["Idempotency-Key"]], [
    "POST",
    "/api/threads/t/messages",
    "key-1",
  ]);
  state.admit(frame("meta", {}, "1.0"));
  const again = state.request();
  assert.deepEqual([again.method, again.path, again.headers["Last-Event-ID"]], ["GET", "/api/threads/t/stream", "1.0"]);
  assert.equal(state.noTurn(), true);
  assert.equal(state.request().method, "POST");
  assert.equal(state.refused(new StreamGapError(409, "STREAM_GAP", "behind")), 0);
  assert.equal(state.request().method, "POST");
});

test("errors are thrown unless they say when to come back", () => {
  const state = new Resume(threadRoute("t"), undefined, undefined, true, undefined);
  assert.throws(() => state.refused(new StreamGapError(409, "STREAM_GAP", "behind")), StreamGapError);
  assert.throws(() => state.refused(new ConferError(409, "THREAD_BUSY", "busy")), ConferError);
  const headers = new Headers({ "retry-after": "3", "x-request-id": "r1" });
  const shutting = ConferError.fromAnswer(503, headers, { error: "SHUTTING_DOWN", detail: "bye" });
  assert.equal(shutting.requestId, "r1");
  assert.equal(state.refused(shutting), 3000);
});

test("routes: a public chat's twin, and a run's events that end with the run", () => {
  assert.equal(threadRoute("t", "help").thread, "/api/public/chat/help/threads/t");
  const run = new Resume({ run: "/api/runners/r/runs/u/events" }, undefined, undefined, true, undefined);
  assert.equal(run.request().path, "/api/runners/r/runs/u/events");
  run.admit(frame("watching", {}, "0.0"));
  assert.equal(run.endOfBody(), false, "a cut before the run ended reconnects");
  run.admit(frame("run_status", { status: "succeeded", statusReason: null }));
  assert.ok(run.admit(frame("done", { ok: true, content: "x" }, "1.3")));
  assert.equal(run.endOfBody(), true);
  assert.equal(run.request().headers["Last-Event-ID"], "1.3");
});
