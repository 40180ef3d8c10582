"""Typed, resumable event streams (sdks.md "Stream rules").

Every SSE route's events (a thread's send and stream, their public-chat
twins, a run's events) are read with httpx-sse and yielded as
`StreamEvent`s whose `data` is the generated type of the event. When the
connection drops, the stream is re-made where it stopped: by re-POSTing the
send with the same Idempotency-Key while no frame has arrived, else by the
route that resumes it with `Last-Event-ID`. Frames already yielded are
dropped by id, so each is yielded once.

`_Resume` holds those rules once; the sync and async loops only do I/O.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
from httpx_sse import ServerSentEvent

from .errors import ConferConnectionError, ConferError, StreamGapError
from .events import EVENT_TYPES

#: Backoff between reconnections: 250 ms, doubling up to 4 s.
FIRST_BACKOFF = 0.25
MAX_BACKOFF = 4.0
#: Codes whose `Retry-After` the stream waits out before trying again.
RETRYABLE = {
    "OWNER_UNAVAILABLE",
    "SHUTTING_DOWN",
    "RATE_LIMITED",
    "THREAD_QUEUE_FULL",
    "ORG_QUEUE_FULL",
}


@dataclass(frozen=True)
class StreamEvent:
    """One event: its name, its id (`T.N`, or None), and its typed data.

    An event this SDK does not know (from a newer server) has `event ==
    "unknown"`, its name in `name` and its JSON as `data`."""

    event: str
    id: str | None
    data: Any
    name: str | None = None


@dataclass(frozen=True)
class SendResult:
    """What `send` returns: the turn's `done` data and its `error`, if any."""

    done: Any
    error: Any = None


def _frame_id(text: str) -> tuple[int, int] | None:
    turn, _, n = text.partition(".")
    try:
        return int(turn), int(n)
    except ValueError:
        return None


def _typed(name: str, own_id: str | None, raw: str) -> StreamEvent:
    try:
        value = json.loads(raw) if raw else None
    except ValueError:
        value = raw
    model = EVENT_TYPES.get(name)
    if model is None:
        return StreamEvent("unknown", own_id, value, name=name)
    if isinstance(value, dict) and hasattr(model, "from_dict"):
        return StreamEvent(name, own_id, model.from_dict(value))
    return StreamEvent(name, own_id, value)


#: Run statuses after which a run's events route closes the stream.
ENDED = {"succeeded", "failed", "cancelled", "expired"}


@dataclass(frozen=True)
class Route:
    """Where a stream is read: a thread's base path (`/api/threads/{id}`, or
    a public chat's twin), whose send POSTs to `messages` and which resumes
    from `stream`; or (`run=True`) a run's events route, which resumes
    itself and ends with the run."""

    path: str
    run: bool = False


def thread_route(thread_id: str, public_slug: str | None = None) -> Route:
    """A thread's route; with `public_slug`, its public chat's twin."""
    if public_slug is None:
        return Route(f"/api/threads/{thread_id}")
    return Route(f"/api/public/chat/{public_slug}/threads/{thread_id}")


class _Resume:
    """The state of one stream across its connections (rules 1-6)."""

    def __init__(
        self,
        route: Route,
        body: dict[str, Any] | None,
        key: str | None,
        follow: bool,
        last_event_id: str | None,
    ) -> None:
        self.route = route
        self.body = body
        self.key = key
        self.follow = follow
        self.last_raw = last_event_id
        self.last = _frame_id(last_event_id) if last_event_id else None
        self.meta_turn: int | None = None
        self.finished = False
        self.run_ended = False
        self.repost = False
        # httpx-sse keeps the last id on events that have none (the SSE
        # rule for `lastEventId`); within one connection a repeated id is
        # therefore an event without its own.
        self.connection_id = ""

    @property
    def sending(self) -> bool:
        return self.body is not None

    def request(self) -> tuple[str, str, dict[str, Any]]:
        """The next request: the send (again), or a reattach."""
        path = self.route.path
        self.connection_id = ""
        if self.route.run:
            headers = {"Accept": "text/event-stream"}
            if self.last_raw:
                headers["Last-Event-ID"] = self.last_raw
            return "GET", path, {"headers": headers}
        if self.sending and (self.last is None or self.repost):
            self.repost = False
            headers = {"Idempotency-Key": self.key or "", "Accept": "text/event-stream"}
            return "POST", f"{path}/messages", {"json": self.body, "headers": headers}
        headers = {"Accept": "text/event-stream"}
        if self.last_raw:
            headers["Last-Event-ID"] = self.last_raw
        params = {"follow": "true"} if self.follow else {}
        return "GET", f"{path}/stream", {"headers": headers, "params": params}

    def no_turn(self) -> bool:
        """A 204 from the reattach: whether to try again (a send re-POSTs)."""
        if self.sending:
            self.repost = True
            return True
        self.finished = True
        return False

    def refused(self, error: ConferError) -> float | None:
        """What a non-2xx answer means: a wait before trying again, or it
        is raised."""
        if isinstance(error, StreamGapError) and self.sending:
            self.repost = True
            return 0.0
        if error.error in RETRYABLE and error.retry_after is not None:
            return error.retry_after
        raise error

    def admit(self, sse: ServerSentEvent) -> StreamEvent | None:
        """The frame to yield, or None for one already seen."""
        own_id = sse.id if sse.id and sse.id != self.connection_id else None
        if sse.id:
            self.connection_id = sse.id
        parsed = _frame_id(own_id) if own_id else None
        if parsed is not None:
            if self.last is not None and parsed <= self.last:
                return None
            self.last, self.last_raw = parsed, own_id
        name = sse.event or "message"
        if name == "meta":
            turn = parsed[0] if parsed else None
            if turn is not None and turn == self.meta_turn:
                return None
            self.meta_turn = turn
        event = _typed(name, own_id, sse.data)
        if name == "done" and (self.sending or not self.follow) and not self.route.run:
            self.finished = True
        if name in ("run", "run_status"):
            status = getattr(event.data, "status", None)
            if str(getattr(status, "value", status)) in ENDED:
                self.run_ended = True
        return event

    def end_of_body(self) -> bool:
        """The body ended: whether that is the stream's end (a run's, after
        its run ended) rather than a dropped connection."""
        self.finished = self.finished or self.run_ended
        return self.finished


def backoff(failures: int) -> float:
    """Seconds before the `failures`th reconnection in a row."""
    return float(min(MAX_BACKOFF, FIRST_BACKOFF * 2 ** max(0, failures - 1)))


def give_up(failures: int, max_reconnects: int, cause: BaseException | None) -> None:
    """Raises `ConferConnectionError` after too many failures in a row."""
    if failures > max_reconnects:
        raise ConferConnectionError(
            f"the stream's connection was lost {failures} times in a row", cause
        )


#: What a lost connection looks like to httpx (and a cut body to httpx-sse).
LOST: tuple[type[BaseException], ...] = (httpx.TransportError, httpx.StreamError)

Sleep = Callable[[float], Any]
