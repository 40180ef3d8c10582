"""The SDK's errors (sdks.md "Client surface"): every non-2xx answer is a
`ConferError` carrying the contract's `{error, detail}` body, the request id
and `Retry-After`; a stream that lost its place is a `StreamGapError`; a
connection that could not be made again is a `ConferConnectionError`."""

from __future__ import annotations

import json
from typing import Any

import httpx


class ConferError(Exception):
    """A non-2xx answer from Confer."""

    def __init__(
        self,
        status: int,
        error: str,
        detail: str,
        request_id: str | None = None,
        retry_after: float | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(f"{status} {error}: {detail}")
        self.status = status
        #: The contract's error code (`NOT_FOUND`, `THREAD_BUSY`…).
        self.error = error
        self.detail = detail
        #: The answer's `X-Request-Id`, to quote to an operator.
        self.request_id = request_id
        #: Seconds to wait before retrying, from `Retry-After`.
        self.retry_after = retry_after
        #: The body as JSON, or as text when it was not JSON.
        self.body = body

    @classmethod
    def from_answer(cls, status: int, headers: httpx.Headers, content: bytes) -> ConferError:
        """Builds the error of one answer; `StreamGapError` for `STREAM_GAP`."""
        body: Any
        try:
            body = json.loads(content)
        except ValueError:
            body = content.decode("utf-8", errors="replace")
        code = "UNKNOWN"
        detail = ""
        if isinstance(body, dict):
            code = str(body.get("error") or code)
            detail = str(body.get("detail") or "")
        elif isinstance(body, str):
            detail = body
        kind = StreamGapError if code == "STREAM_GAP" else cls
        return kind(
            status,
            code,
            detail,
            request_id=headers.get("x-request-id"),
            retry_after=retry_after(headers),
            body=body,
        )


class StreamGapError(ConferError):
    """A watched stream fell behind the frames the server keeps."""


class ConferConnectionError(ConferError):
    """The connection was lost and could not be made again."""

    def __init__(self, detail: str, cause: BaseException | None = None) -> None:
        super().__init__(0, "CONNECTION_LOST", detail)
        self.__cause__ = cause


def retry_after(headers: httpx.Headers) -> float | None:
    """`Retry-After` in seconds (the delay form; Confer never sends a date)."""
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def raise_for_answer(response: httpx.Response) -> None:
    """The sync client's response hook: raises `ConferError` on a non-2xx."""
    if response.is_success:
        return
    response.read()
    raise ConferError.from_answer(response.status_code, response.headers, response.content)


async def araise_for_answer(response: httpx.Response) -> None:
    """The async client's response hook."""
    if response.is_success:
        return
    await response.aread()
    raise ConferError.from_answer(response.status_code, response.headers, response.content)
