// sdks.md "Acceptance" 1-6 for the TypeScript SDK, against the real Confer
// that tests/api/sdks.rs starts (CONFER_URL, CONFER_API_KEY, and aimock
// behind CONFER_TOOL_MODEL).

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  agentsCreate,
  agentsGet,
  publicChatSession,
  publicThreadsCreate,
  publishCreate,
  runnerButtonRun,
  runnersCreate,
  runsStart,
  Confer,
  ConferError,
  messagesHistory,
  messagesStop,
  type StreamEvent,
  threadsCreate,
  triggersCreate,
} from "../src/index.js";

const baseUrl = process.env.CONFER_URL ?? "http://127.0.0.1:8080";
const apiKey = process.env.CONFER_API_KEY ?? "";
const toolModel = process.env.CONFER_TOOL_MODEL ?? "";

const confer = new Confer({ baseUrl, apiKey });

async function newThread(client: Confer, model = "builtin/echo"): Promise<string> {
  const name = `sdk-${crypto.randomUUID().slice(0, 8)}`;
  const { data: agent } = await agentsCreate({
    client: client.client,
    throwOnError: true,
    body: { name, defaultModel: model },
  });
  const { data: thread } = await threadsCreate({
    client: client.client,
    throwOnError: true,
    body: { agentId: agent.id },
  });
  return thread.id;
}

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The answer's text, narrowing each event by its name. */
function tokens(events: StreamEvent[]): string {
  let text = "";
  for (const event of events) {
    switch (event.event) {
      case "token":
        text += event.data.delta;
        break;
      case "done":
        assert.equal(typeof event.data.content, "string");
        break;
      case "unknown":
        assert.equal(typeof event.name, "string");
        break;
      default:
        break;
    }
  }
  return text;
}

function doneOf(events: StreamEvent[]) {
  const last = events.at(-1);
  assert.ok(last && last.event === "done", `last event: ${last?.event}`);
  return last.data;
}

test("basics: one thread per key, and a stream that adds up", async () => {
  const { data: agent } = await agentsCreate({
    client: confer.client,
    throwOnError: true,
    body: { name: "sdk-basics", defaultModel: "builtin/echo" },
  });
  const key = crypto.randomUUID();
  const created = [];
  for (let i = 0; i < 2; i++) {
    const { data } = await threadsCreate({
      client: confer.client,
      throwOnError: true,
      headers: { "Idempotency-Key": key },
      body: { agentId: agent.id },
    });
    created.push(data.id);
  }
  assert.equal(created[0], created[1]);

  const events = await collect(confer.stream(created[0]!, { content: "one two three" }));
  const done = doneOf(events);
  assert.equal(tokens(events), done.content);
  assert.equal(done.content, "one two three");
  assert.equal(events.filter((e) => e.event === "done").length, 1);
  const { data: page } = await messagesHistory({
    client: confer.client,
    throwOnError: true,
    path: { thread_id: created[0]! },
  });
  assert.ok(page.messages.some((m) => m.id === done.messageId));
});

test("stop ends the turn with a partial answer", async () => {
  const thread = await newThread(confer);
  const words = Array.from({ length: 20 }, (_, i) => `w${i}`).join(" ");
  let seen = 0;
  const events: StreamEvent[] = [];
  for await (const event of confer.stream(thread, { content: words })) {
    events.push(event);
    if (event.event === "token" && ++seen === 2) {
      await messagesStop({ client: confer.client, throwOnError: true, path: { thread_id: thread } });
    }
  }
  const done = doneOf(events);
  assert.equal(done.stopped, true);
  assert.ok(done.content.length > 0 && done.content.length < words.length, done.content);
});

test("a cut stream resumes with Last-Event-ID", async () => {
  const requests: Request[] = [];
  let cutAfter: string | undefined;
  const cutting: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    requests.push(request.clone());
    const response = await fetch(request);
    if (cutAfter !== undefined || !response.headers.get("content-type")?.includes("event-stream")) {
      return response;
    }
    const frames = (await response.text()).split("\n\n").slice(0, 3);
    cutAfter = /^id: ?(.*)$/m.exec(frames[2]!)?.[1];
    return new Response(frames.join("\n\n") + "\n\n", { status: response.status, headers: response.headers });
  };
  const client = new Confer({ baseUrl, apiKey, fetch: cutting });
  const thread = await newThread(client);
  const content = "alpha beta gamma delta epsilon";
  const events = await collect(client.stream(thread, { content }));
  assert.ok(cutAfter);
  const lastSend = requests.findLastIndex((r) => r.url.endsWith("/messages"));
  const reattach = requests[lastSend + 1]!;
  assert.equal(reattach.method, "GET");
  assert.ok(new URL(reattach.url).pathname.endsWith("/stream"));
  assert.equal(reattach.headers.get("last-event-id"), cutAfter);
  const ids = events.flatMap((e) => (e.id === undefined ? [] : [e.id]));
  assert.equal(new Set(ids).size, ids.length);
  assert.equal(events.filter((e) => e.event === "done").length, 1);
  assert.equal(tokens(events), content);
  assert.equal(doneOf(events).content, content);
});

test("a client tool round trip on aimock", async () => {
  const thread = await newThread(confer, toolModel);
  const tools = [{ name: "get_weather", parameters: { type: "object" } }];
  const events = await collect(confer.stream(thread, { content: "Weather in Paris?", tools }));
  const action = events.find((e) => e.event === "requires_action");
  assert.ok(action && action.event === "requires_action");
  const call = action.data.toolCalls[0]!;
  assert.equal(call.name, "get_weather");
  const { done } = await confer.send(thread, {
    content: "",
    toolResults: [{ toolCallId: call.id, output: "18 °C" }],
  });
  assert.equal(done.ok, true);
  assert.equal(done.content, "It is 18 °C in Paris.");
});

test("errors carry the contract's body", async () => {
  const missing = await agentsGet({ client: confer.client, path: { agent_id: crypto.randomUUID() } }).catch(
    (e) => e,
  );
  assert.ok(missing instanceof ConferError);
  assert.equal(missing.status, 404);
  assert.equal(missing.error, "NOT_FOUND");
  assert.ok(missing.detail && missing.requestId);
  const noThread = await collect(confer.stream(crypto.randomUUID(), { content: "hello" })).catch((e) => e);
  assert.ok(noThread instanceof ConferError);
  assert.equal(noThread.status, 404);

  const generated = await agentsCreate({ client: confer.client, body: { name: "" } }).catch((e) => e);
  assert.ok(generated instanceof ConferError, String(generated));
  assert.equal(generated.status, 422);

  const thread = await newThread(confer);
  const empty = await collect(confer.stream(thread, { content: "" })).catch((e) => e);
  assert.ok(empty instanceof ConferError);
  assert.equal(empty.status, 422);
  assert.equal(empty.error, "VALIDATION_ERROR");

  const running = confer.stream(thread, { content: "one two three four five" });
  assert.equal((await running.next()).value?.event, "meta");
  const busy = await confer
    .stream(thread, { content: "again", ifBusy: "reject" })
    .next()
    .catch((e) => e);
  assert.ok(busy instanceof ConferError);
  assert.equal(busy.status, 409);
  assert.equal(busy.error, "THREAD_BUSY");
  const rest = await collect(running);
  assert.equal(rest.at(-1)?.event, "done");
});

test("a run's events stream to its end", async () => {
  const { data: agent } = await agentsCreate({
    client: confer.client,
    throwOnError: true,
    body: { name: "sdk-runner", defaultModel: "builtin/echo" },
  });
  const { data: runner } = await runnersCreate({
    client: confer.client,
    throwOnError: true,
    body: { agentId: agent.id, name: "Echo", instructions: "Say {{ input.word }}" },
  });
  const { data: run } = await runsStart({
    client: confer.client,
    throwOnError: true,
    path: { runner_id: runner.id },
    body: { input: { word: "hello" } },
  });
  const events = await collect(confer.runEvents(runner.id, run.id));
  const names = events.map((e) => e.event);
  assert.ok(names.includes("run"), names.join());
  assert.equal(tokens(events), "Say hello");
  const last = events.filter((e) => e.event === "run_status").at(-1);
  assert.ok(last && last.event === "run_status");
  assert.equal(last.data.status, "succeeded");
});

test("a runner's button starts a run whose public events need only the view token", async () => {
  const { data: agent } = await agentsCreate({
    client: confer.client,
    throwOnError: true,
    body: { name: "sdk-button", defaultModel: "builtin/echo" },
  });
  const { data: runner } = await runnersCreate({
    client: confer.client,
    throwOnError: true,
    body: { agentId: agent.id, name: "Echo", instructions: "Press {{ input.word }}" },
  });
  await triggersCreate({
    client: confer.client,
    throwOnError: true,
    path: { runner_id: runner.id },
    body: { kind: "button" },
  });
  const anonymous = new Confer({ baseUrl, token: () => "" });
  const { data: started } = await runnerButtonRun({
    client: anonymous.client,
    throwOnError: true,
    path: { runner_id: runner.id },
    body: { input: { word: "play" } },
  });
  const events = await collect(anonymous.buttonEvents(runner.id, started.run_id, started.view_token));
  const names = new Set(events.map((e) => e.event));
  assert.deepEqual([...names].sort(), ["done", "run_status", "token"]);
  assert.equal(tokens(events), "Press play");
  const last = events.filter((e) => e.event === "run_status").at(-1);
  assert.ok(last && last.event === "run_status");
  assert.equal(last.data.status, "succeeded");
});

test("a public chat's visitor streams through the public twin", async () => {
  const { data: agent } = await agentsCreate({
    client: confer.client,
    throwOnError: true,
    body: { name: "sdk-public", defaultModel: "builtin/echo" },
  });
  const slug = `sdk-${crypto.randomUUID().slice(0, 8)}`;
  await publishCreate({ client: confer.client, throwOnError: true, path: { agent_id: agent.id }, body: { slug } });
  const anonymous = new Confer({ baseUrl, token: () => "" });
  const { data: session } = await publicChatSession({ client: anonymous.client, throwOnError: true, path: { slug } });
  const visitor = new Confer({ baseUrl, token: () => session.token });
  const { data: thread } = await publicThreadsCreate({ client: visitor.client, throwOnError: true, path: { slug } });
  const events = await collect(visitor.publicStream(slug, thread.id, { content: "hi there" }));
  assert.equal(doneOf(events).content, "hi there");
  assert.equal(tokens(events), "hi there");
});
