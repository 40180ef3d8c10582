"""`Confer`: the configured generated client plus the event streams
(sdks.md "Client surface").

    confer = Confer("http://127.0.0.1:8080", api_key="cfr_…")
    for event in confer.stream(thread_id, {"content": "Hello"}):
        ...

`confer.client` is the generated client, ready for every generated
operation (`confer.api.agents.agents_create.sync(client=confer.client, …)`);
every non-2xx answer raises `ConferError`.
"""

from __future__ import annotations

import asyncio
import time
import urllib.parse
import uuid
from collections.abc import AsyncIterator, Callable, Generator, Iterator
from typing import Any

import httpx
from httpx_sse import EventSource

from ._generated.client import AuthenticatedClient
from ._version import VERSION
from .errors import ConferError, araise_for_answer, raise_for_answer
from .stream import LOST, Route, SendResult, StreamEvent, _Resume, backoff, give_up, thread_route

#: No read timeout: a stream may be quiet between a tool's events for long.
TIMEOUT = httpx.Timeout(30.0, read=None)


class _Bearer(httpx.Auth):
    """`Authorization: Bearer …` from a key, or from a callable asked on
    every request (a JWT that expires); none when it is empty (the public
    chat's routes before a visitor has a token)."""

    def __init__(self, credential: str | Callable[[], str]) -> None:
        self.credential = credential

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        token = self.credential() if callable(self.credential) else self.credential
        if token:
            request.headers["Authorization"] = f"Bearer {token}"
        yield request


class Confer:
    """A Confer server, called with one API key or token source."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        token: Callable[[], str] | None = None,
        transport: httpx.BaseTransport | httpx.AsyncBaseTransport | None = None,
    ) -> None:
        credential = api_key if api_key is not None else token
        if credential is None:
            raise ValueError("Confer needs api_key or token")
        common: dict[str, Any] = {
            "base_url": base_url,
            "auth": _Bearer(credential),
            "headers": {"User-Agent": f"confer-sdk-python/{VERSION}"},
            "timeout": TIMEOUT,
        }
        sync_transport = transport if isinstance(transport, httpx.BaseTransport) else None
        async_transport = transport if isinstance(transport, httpx.AsyncBaseTransport) else None
        self.http = httpx.Client(
            **common, transport=sync_transport, event_hooks={"response": [raise_for_answer]}
        )
        self.ahttp = httpx.AsyncClient(
            **common, transport=async_transport, event_hooks={"response": [araise_for_answer]}
        )
        #: The generated client, configured: pass it as `client=` to any
        #: generated operation.
        # The token is unused: the httpx clients set below carry `_Bearer`.
        self.client = AuthenticatedClient(base_url=base_url, token="")
        self.client.set_httpx_client(self.http)
        self.client.set_async_httpx_client(self.ahttp)

    def close(self) -> None:
        self.http.close()

    async def aclose(self) -> None:
        await self.ahttp.aclose()

    # Sends: a thread's, or (with `public_slug`) a public chat thread's,
    # for a client made with the visitor's token.

    def stream(
        self,
        thread_id: str,
        body: dict[str, Any],
        idempotency_key: str | None = None,
        max_reconnects: int = 5,
        public_slug: str | None = None,
    ) -> Iterator[StreamEvent]:
        """Sends a message and yields its turn's events, through to `done`."""
        state = self._send_state(thread_id, body, idempotency_key, public_slug)
        return self._events(state, max_reconnects)

    def astream(
        self,
        thread_id: str,
        body: dict[str, Any],
        idempotency_key: str | None = None,
        max_reconnects: int = 5,
        public_slug: str | None = None,
    ) -> AsyncIterator[StreamEvent]:
        """`stream`, async."""
        state = self._send_state(thread_id, body, idempotency_key, public_slug)
        return self._aevents(state, max_reconnects)

    def public_stream(
        self, slug: str, thread_id: str, body: dict[str, Any], **options: Any
    ) -> Iterator[StreamEvent]:
        """`stream` on a public chat's thread (`/api/public/chat/{slug}/…`)."""
        return self.stream(thread_id, body, public_slug=slug, **options)

    def apublic_stream(
        self, slug: str, thread_id: str, body: dict[str, Any], **options: Any
    ) -> AsyncIterator[StreamEvent]:
        """`public_stream`, async."""
        return self.astream(thread_id, body, public_slug=slug, **options)

    def send(self, thread_id: str, body: dict[str, Any], **options: Any) -> SendResult:
        """Sends a message and returns its `done` (and `error`, if one came)."""
        done: Any = None
        error: Any = None
        for event in self.stream(thread_id, body, **options):
            if event.event == "error":
                error = event.data
            elif event.event == "done":
                done = event.data
        return SendResult(done, error)

    async def asend(self, thread_id: str, body: dict[str, Any], **options: Any) -> SendResult:
        """`send`, async."""
        done: Any = None
        error: Any = None
        async for event in self.astream(thread_id, body, **options):
            if event.event == "error":
                error = event.data
            elif event.event == "done":
                done = event.data
        return SendResult(done, error)

    # Watches.

    def watch(
        self,
        thread_id: str,
        follow: bool = False,
        last_event_id: str | None = None,
        max_reconnects: int = 5,
        public_slug: str | None = None,
    ) -> Iterator[StreamEvent]:
        """Reads a thread's running turn (or, with `follow`, every turn)."""
        state = _Resume(
            thread_route(str(thread_id), public_slug), None, None, follow, last_event_id
        )
        return self._events(state, max_reconnects)

    def awatch(
        self,
        thread_id: str,
        follow: bool = False,
        last_event_id: str | None = None,
        max_reconnects: int = 5,
        public_slug: str | None = None,
    ) -> AsyncIterator[StreamEvent]:
        """`watch`, async."""
        state = _Resume(
            thread_route(str(thread_id), public_slug), None, None, follow, last_event_id
        )
        return self._aevents(state, max_reconnects)

    # A run's events: `watching`, the `run`, its turns' frames and its
    # `run_status` changes, until the run ends.

    def run_events(
        self,
        runner_id: str,
        run_id: str,
        last_event_id: str | None = None,
        max_reconnects: int = 5,
    ) -> Iterator[StreamEvent]:
        """Reads a run's events to its end."""
        return self._events(self._run_state(runner_id, run_id, last_event_id), max_reconnects)

    def arun_events(
        self,
        runner_id: str,
        run_id: str,
        last_event_id: str | None = None,
        max_reconnects: int = 5,
    ) -> AsyncIterator[StreamEvent]:
        """`run_events`, async."""
        return self._aevents(self._run_state(runner_id, run_id, last_event_id), max_reconnects)

    def button_events(
        self,
        runner_id: str,
        run_id: str,
        view_token: str,
        last_event_id: str | None = None,
        max_reconnects: int = 5,
    ) -> Iterator[StreamEvent]:
        """A button run's public events (`token`, `run_status`, `error`,
        `done`), opened by the `view_token` `runner_button_run` answered; no
        credential needed."""
        state = self._button_state(runner_id, run_id, view_token, last_event_id)
        return self._events(state, max_reconnects)

    def abutton_events(
        self,
        runner_id: str,
        run_id: str,
        view_token: str,
        last_event_id: str | None = None,
        max_reconnects: int = 5,
    ) -> AsyncIterator[StreamEvent]:
        """`button_events`, async."""
        state = self._button_state(runner_id, run_id, view_token, last_event_id)
        return self._aevents(state, max_reconnects)

    @staticmethod
    def _button_state(
        runner_id: str, run_id: str, view_token: str, last_event_id: str | None
    ) -> _Resume:
        query = urllib.parse.urlencode({"viewToken": view_token})
        path = f"/api/runners/{runner_id}/button/runs/{run_id}/events?{query}"
        return _Resume(Route(path, run=True), None, None, True, last_event_id)

    @staticmethod
    def _send_state(
        thread_id: str, body: dict[str, Any], key: str | None, public_slug: str | None
    ) -> _Resume:
        route = thread_route(str(thread_id), public_slug)
        return _Resume(route, body, key or str(uuid.uuid4()), False, None)

    @staticmethod
    def _run_state(runner_id: str, run_id: str, last_event_id: str | None) -> _Resume:
        route = Route(f"/api/runners/{runner_id}/runs/{run_id}/events", run=True)
        return _Resume(route, None, None, True, last_event_id)

    # The loops: I/O only; `_Resume` decides.

    def _events(self, state: _Resume, max_reconnects: int) -> Iterator[StreamEvent]:
        failures = 0
        while True:
            method, url, options = state.request()
            wait: float | None = None
            cause: BaseException | None = None
            try:
                with self.http.stream(method, url, **options) as response:
                    if response.status_code == 204:
                        if not state.no_turn():
                            return
                        continue
                    for sse in EventSource(response).iter_sse():
                        event = state.admit(sse)
                        if event is not None:
                            failures = 0
                            yield event
                        if state.finished:
                            return
                    if state.end_of_body():
                        return
            except ConferError as error:
                wait = state.refused(error)
                cause = error
            except LOST as error:
                cause = error
            failures += 1
            give_up(failures, max_reconnects, cause)
            time.sleep(backoff(failures) if wait is None else wait)

    async def _aevents(self, state: _Resume, max_reconnects: int) -> AsyncIterator[StreamEvent]:
        failures = 0
        while True:
            method, url, options = state.request()
            wait: float | None = None
            cause: BaseException | None = None
            try:
                async with self.ahttp.stream(method, url, **options) as response:
                    if response.status_code == 204:
                        if not state.no_turn():
                            return
                        continue
                    async for sse in EventSource(response).aiter_sse():
                        event = state.admit(sse)
                        if event is not None:
                            failures = 0
                            yield event
                        if state.finished:
                            return
                    if state.end_of_body():
                        return
            except ConferError as error:
                wait = state.refused(error)
                cause = error
            except LOST as error:
                cause = error
            failures += 1
            give_up(failures, max_reconnects, cause)
            await asyncio.sleep(backoff(failures) if wait is None else wait)
