"""The stream rules of sdks.md, on `_Resume` alone (no server): ids
compared as (turn, n), repeats dropped, id-less frames kept, one `meta`
per turn, unknown events yielded, and what each answer makes it do."""

from __future__ import annotations

import httpx
import pytest
from httpx_sse import ServerSentEvent

from confer import ConferError, StreamGapError
from confer.models import DoneEvent, TokenEvent
from confer.stream import Route, _Resume, backoff, thread_route

THREAD = "01a21a2f-fe23-718c-81a3-d7f0ea448a51"
META = f'{{"startedAt": "2026-11-27T00:00:00Z", "threadId": "{THREAD}", "model": "echo"}}'


def sse(event: str, data: str, id: str = "") -> ServerSentEvent:
    return ServerSentEvent(event=event, data=META if event == "meta" else data, id=id)


def test_frames_are_yielded_once_by_id_and_id_less_ones_always() -> None:
    state = _Resume(thread_route("t"), {"content": "x"}, "key", False, None)
    first = state.admit(sse("meta", "{}", "2.0"))
    assert first is not None and first.id == "2.0"
    token = state.admit(sse("token", '{"delta": "a"}', "2.1"))
    assert token is not None and isinstance(token.data, TokenEvent)
    # A reconnection replays: older ids are dropped, (2, 10) is after (2, 9).
    state.connection_id = ""
    assert state.admit(sse("token", '{"delta": "a"}', "2.1")) is None
    assert state.admit(sse("token", '{"delta": "b"}', "2.10")) is not None
    assert state.admit(sse("token", '{"delta": "c"}', "2.9")) is None
    # httpx-sse repeats the connection's last id line on a frame without
    # one: still yielded, and it moves nothing.
    idless = state.admit(sse("queued", '{"position": 1}', "2.9"))
    assert idless is not None and idless.id is None
    assert state.last == (2, 10)


def test_a_second_meta_of_a_turn_is_dropped_and_done_ends_a_send() -> None:
    state = _Resume(thread_route("t"), {"content": "x"}, "key", False, None)
    assert state.admit(sse("meta", "{}", "3.0")) is not None
    state.connection_id = ""
    assert state.admit(sse("meta", "{}", "3.0")) is None
    done = state.admit(sse("done", '{"ok": true, "content": "hi"}', "3.4"))
    assert done is not None and isinstance(done.data, DoneEvent)
    assert state.finished


def test_an_unknown_event_is_yielded_with_its_name() -> None:
    state = _Resume(thread_route("t"), None, None, True, None)
    event = state.admit(sse("brand_new", '{"x": 1}', "1.1"))
    assert event is not None
    assert (event.event, event.name, event.data) == ("unknown", "brand_new", {"x": 1})


def test_requests_resend_with_the_key_then_reattach_after_the_last_id() -> None:
    state = _Resume(thread_route("t"), {"content": "x"}, "key-1", False, None)
    method, url, options = state.request()
    assert (method, url, options["headers"]["Idempotency-Key"]) == (
        "POST",
        "/api/threads/t/messages",
        "key-1",
    )
    state.admit(sse("meta", "{}", "1.0"))
    method, url, options = state.request()
    assert (method, url, options["headers"]["Last-Event-ID"]) == (
        "GET",
        "/api/threads/t/stream",
        "1.0",
    )
    # 204 (no turn to reattach to) or STREAM_GAP: the send is re-POSTed.
    assert state.no_turn()
    assert state.request()[0] == "POST"
    gap = StreamGapError(409, "STREAM_GAP", "behind")
    assert state.refused(gap) == 0.0
    assert state.request()[1] == "/api/threads/t/messages"


def test_errors_are_raised_unless_they_say_when_to_come_back() -> None:
    state = _Resume(thread_route("t"), None, None, True, None)
    with pytest.raises(StreamGapError):
        state.refused(StreamGapError(409, "STREAM_GAP", "behind"))
    with pytest.raises(ConferError):
        state.refused(ConferError(409, "THREAD_BUSY", "busy"))
    headers = httpx.Headers({"retry-after": "3", "x-request-id": "r1"})
    shutting = ConferError.from_answer(503, headers, b'{"error": "SHUTTING_DOWN"}')
    assert shutting.request_id == "r1"
    assert state.refused(shutting) == 3.0
    assert [backoff(n) for n in (1, 2, 3, 6, 9)] == [0.25, 0.5, 1.0, 4.0, 4.0]


def test_a_public_twin_and_a_run_that_ends_the_stream() -> None:
    assert thread_route("t", "help").path == "/api/public/chat/help/threads/t"
    run = _Resume(Route("/api/runners/r/runs/u/events", run=True), None, None, True, None)
    assert run.request()[1] == "/api/runners/r/runs/u/events"
    run.admit(
        sse("watching", f'{{"threadId": "{THREAD}", "runningTurn": null, "lastTurn": 0}}', "0.0")
    )
    assert not run.end_of_body(), "a cut before the run ended reconnects"
    run.connection_id = ""
    run.admit(sse("run_status", '{"status": "succeeded", "statusReason": null}'))
    assert run.admit(sse("done", '{"ok": true, "content": "x"}', "1.3")) is not None
    assert run.end_of_body()
    assert run.request()[2]["headers"]["Last-Event-ID"] == "1.3"
