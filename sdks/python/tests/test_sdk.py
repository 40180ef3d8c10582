"""sdks.md "Acceptance" 1-5 for the Python SDK, sync and async."""

from __future__ import annotations

import asyncio
import uuid

import httpx
import pytest

from confer import Confer, ConferError, StreamEvent
from confer.api import (
    agents_create,
    agents_get,
    messages_history,
    messages_stop,
    public_chat_session,
    public_threads_create,
    publish_create,
    runner_button_run,
    runners_create,
    runs_start,
    threads_create,
    triggers_create,
)
from confer.models import (
    AgentView,
    ButtonRun,
    ButtonRunInputType0,
    ButtonRunStarted,
    CreateAgent,
    CreateThread,
    CreateTrigger,
    CreateVisitorThread,
    DoneEvent,
    HistoryPage,
    PublicationBody,
    RequiresActionEvent,
    Run,
    RunnerBody,
    RunnerWithSecret,
    SessionRequest,
    StartRun,
    StartRunInputType0,
    StopBody,
    TriggerKind,
    VisitorSession,
    VisitorThread,
)

from conftest import KEY, TOOL_MODEL, URL, new_agent, new_thread


def tokens(events: list[StreamEvent]) -> str:
    return "".join(e.data.delta for e in events if e.event == "token")


def test_basics_one_thread_per_key_and_a_stream_that_adds_up(confer: Confer) -> None:
    agent = new_agent(confer)
    key = str(uuid.uuid4())
    first = threads_create.sync(
        client=confer.client, body=CreateThread(agent_id=agent.id), idempotency_key=key
    )
    again = threads_create.sync(
        client=confer.client, body=CreateThread(agent_id=agent.id), idempotency_key=key
    )
    assert first is not None and again is not None
    assert first.id == again.id

    events = list(confer.stream(str(first.id), {"content": "one two three"}))
    done = events[-1]
    assert done.event == "done" and isinstance(done.data, DoneEvent)
    assert tokens(events) == done.data.content == "one two three"
    assert [e.event for e in events].count("done") == 1
    page = messages_history.sync(first.id, client=confer.client)
    assert isinstance(page, HistoryPage)
    assert str(done.data.message_id) in [str(m.id) for m in page.messages]


def test_stop_ends_the_turn_with_a_partial_answer(confer: Confer) -> None:
    thread = new_thread(confer, new_agent(confer))
    words = " ".join(f"w{i}" for i in range(20))
    seen = 0
    done = None
    for event in confer.stream(str(thread.id), {"content": words}):
        if event.event == "token":
            seen += 1
            if seen == 2:
                messages_stop.sync(thread.id, client=confer.client, body=StopBody())
        if event.event == "done":
            done = event.data
    assert isinstance(done, DoneEvent)
    assert done.stopped is True
    assert 0 < len(done.content) < len(words)


class CutAfterThirdFrame(httpx.BaseTransport):
    """Ends the first stream's body after its third frame, and records
    every request."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.requests: list[httpx.Request] = []
        self.cut_after_id: str | None = None

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        response = self.inner.handle_request(request)
        if self.cut_after_id is not None or "event-stream" not in response.headers.get(
            "content-type", ""
        ):
            return response
        response.read()
        frames = response.content.split(b"\n\n")
        kept = frames[:3]
        for line in kept[2].split(b"\n"):
            if line.startswith(b"id:"):
                self.cut_after_id = line[3:].strip().decode()
        body = b"\n\n".join(kept) + b"\n\n"
        return httpx.Response(response.status_code, headers=response.headers, content=body)


def test_a_cut_stream_resumes_with_last_event_id() -> None:
    cut = CutAfterThirdFrame()
    confer = Confer(URL, api_key=KEY, transport=cut)
    thread = new_thread(confer, new_agent(confer))
    content = "alpha beta gamma delta epsilon"
    events = list(confer.stream(str(thread.id), {"content": content}))
    assert cut.cut_after_id is not None
    sends = [r for r in cut.requests if r.url.path.endswith("/messages")]
    reattach = cut.requests[cut.requests.index(sends[-1]) + 1]
    assert reattach.method == "GET" and reattach.url.path.endswith("/stream")
    assert reattach.headers["last-event-id"] == cut.cut_after_id
    ids = [e.id for e in events if e.id is not None]
    assert len(ids) == len(set(ids)), ids
    assert [e.event for e in events].count("done") == 1
    assert tokens(events) == events[-1].data.content == content
    confer.close()


def test_a_client_tool_round_trip_on_aimock(confer: Confer) -> None:
    thread = new_thread(confer, new_agent(confer, TOOL_MODEL))
    tools = [{"name": "get_weather", "parameters": {"type": "object"}}]
    events = list(confer.stream(str(thread.id), {"content": "Weather in Paris?", "tools": tools}))
    action = next(e.data for e in events if e.event == "requires_action")
    assert isinstance(action, RequiresActionEvent)
    call = action.tool_calls[0]
    assert call.name == "get_weather"
    result = confer.send(
        str(thread.id),
        {"content": "", "toolResults": [{"toolCallId": call.id, "output": "18 °C"}]},
    )
    assert result.done.ok is True
    assert result.done.content == "It is 18 °C in Paris."


def test_errors_carry_the_contracts_body(confer: Confer) -> None:
    with pytest.raises(ConferError) as missing:
        agents_get.sync(uuid.uuid4(), client=confer.client)
    assert missing.value.status == 404 and missing.value.error == "NOT_FOUND"
    assert missing.value.detail and missing.value.request_id
    with pytest.raises(ConferError) as no_thread:
        list(confer.stream(str(uuid.uuid4()), {"content": "hello"}))
    assert no_thread.value.status == 404

    thread = new_thread(confer, new_agent(confer))
    with pytest.raises(ConferError) as empty:
        list(confer.stream(str(thread.id), {"content": ""}))
    assert empty.value.status == 422 and empty.value.error == "VALIDATION_ERROR"

    running = confer.stream(str(thread.id), {"content": "one two three four five"})
    assert next(running).event == "meta"
    busy = confer.stream(str(thread.id), {"content": "again", "ifBusy": "reject"})
    with pytest.raises(ConferError) as refused:
        next(busy)
    assert refused.value.status == 409 and refused.value.error == "THREAD_BUSY"
    assert [e.event for e in running][-1] == "done"


def test_the_async_stream_matches_the_sync_one() -> None:
    async def scenario() -> None:
        confer = Confer(URL, api_key=KEY)
        thread = new_thread(confer, new_agent(confer))
        events = [e async for e in confer.astream(str(thread.id), {"content": "one two"})]
        assert tokens(events) == events[-1].data.content == "one two"
        watched = [e async for e in confer.awatch(str(thread.id), last_event_id="1.0")]
        assert tokens(watched) == "one two"
        await confer.aclose()
        confer.close()

    asyncio.run(scenario())


def test_a_runs_events_stream_to_its_end(confer: Confer) -> None:
    agent = new_agent(confer)
    runner = runners_create.sync(
        client=confer.client,
        body=RunnerBody(agent_id=agent.id, name="Echo", instructions="Say {{ input.word }}"),
    )
    assert isinstance(runner, RunnerWithSecret)
    run = runs_start.sync(
        runner.id,
        client=confer.client,
        body=StartRun(input_=StartRunInputType0.from_dict({"word": "hello"})),
    )
    assert isinstance(run, Run)
    events = list(confer.run_events(str(runner.id), str(run.id)))
    assert "run" in [e.event for e in events]
    assert tokens(events) == "Say hello"
    statuses = [e.data.status.value for e in events if e.event == "run_status"]
    assert statuses[-1] == "succeeded", statuses


def test_a_button_run_streams_its_public_events_by_view_token(confer: Confer) -> None:
    agent = new_agent(confer)
    runner = runners_create.sync(
        client=confer.client,
        body=RunnerBody(agent_id=agent.id, name="Echo", instructions="Press {{ input.word }}"),
    )
    assert isinstance(runner, RunnerWithSecret)
    triggers_create.sync(
        runner.id, client=confer.client, body=CreateTrigger(kind=TriggerKind.BUTTON)
    )
    anonymous = Confer(URL, token=lambda: "")
    started = runner_button_run.sync(
        runner.id,
        client=anonymous.client,
        body=ButtonRun(input_=ButtonRunInputType0.from_dict({"word": "play"})),
    )
    assert isinstance(started, ButtonRunStarted), started
    events = list(anonymous.button_events(str(runner.id), str(started.run_id), started.view_token))
    assert {e.event for e in events} == {"token", "run_status", "done"}
    assert tokens(events) == "Press play"
    statuses = [e.data.status.value for e in events if e.event == "run_status"]
    assert statuses[-1] == "succeeded", statuses
    anonymous.close()


def test_a_public_chats_visitor_streams_through_the_public_twin(confer: Confer) -> None:
    agent = agents_create.sync(
        client=confer.client, body=CreateAgent(name="sdk-public", default_model="builtin/echo")
    )
    assert isinstance(agent, AgentView)
    slug = f"sdk-{uuid.uuid4().hex[:8]}"
    publish_create.sync(agent.id, client=confer.client, body=PublicationBody(slug=slug))
    anonymous = Confer(URL, token=lambda: "")
    session = public_chat_session.sync(slug, client=anonymous.client, body=SessionRequest())
    assert isinstance(session, VisitorSession)
    visitor = Confer(URL, token=lambda: session.token)
    thread = public_threads_create.sync(slug, client=visitor.client, body=CreateVisitorThread())
    assert isinstance(thread, VisitorThread)
    events = list(visitor.public_stream(slug, str(thread.id), {"content": "hi there"}))
    assert tokens(events) == events[-1].data.content == "hi there"
    for client in (anonymous, visitor):
        client.close()
