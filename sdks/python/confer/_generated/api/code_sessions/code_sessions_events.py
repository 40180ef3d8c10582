from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.auth_challenge_event import AuthChallengeEvent
from ...models.citation_event import CitationEvent
from ...models.compaction_event import CompactionEvent
from ...models.done_event import DoneEvent
from ...models.error_body import ErrorBody
from ...models.error_event import ErrorEvent
from ...models.meta_event import MetaEvent
from ...models.profile_switch_proposal_event import ProfileSwitchProposalEvent
from ...models.queued_event import QueuedEvent
from ...models.requires_action_event import RequiresActionEvent
from ...models.run_event import RunEvent
from ...models.run_status_event import RunStatusEvent
from ...models.session_status_event import SessionStatusEvent
from ...models.thinking_event import ThinkingEvent
from ...models.token_event import TokenEvent
from ...models.tool_call_event import ToolCallEvent
from ...models.tool_executing_event import ToolExecutingEvent
from ...models.tool_output_event import ToolOutputEvent
from ...models.tool_progress_event import ToolProgressEvent
from ...models.tool_result_event import ToolResultEvent
from ...models.turn_gap_event import TurnGapEvent
from ...models.watching_event import WatchingEvent
from ...types import UNSET, Response, Unset


def _get_kwargs(
    code_session_id: UUID,
    *,
    after: str | Unset = UNSET,
    last_event_id: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(last_event_id, Unset):
        headers["Last-Event-ID"] = last_event_id

    params: dict[str, Any] = {}

    params["after"] = after

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/code-sessions/{code_session_id}/events".format(
            code_session_id=quote(str(code_session_id), safe=""),
        ),
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    AuthChallengeEvent
    | CitationEvent
    | CompactionEvent
    | DoneEvent
    | ErrorEvent
    | MetaEvent
    | ProfileSwitchProposalEvent
    | QueuedEvent
    | RequiresActionEvent
    | RunEvent
    | RunStatusEvent
    | SessionStatusEvent
    | ThinkingEvent
    | TokenEvent
    | ToolCallEvent
    | ToolExecutingEvent
    | ToolOutputEvent
    | ToolProgressEvent
    | ToolResultEvent
    | TurnGapEvent
    | WatchingEvent
    | ErrorBody
    | None
):
    if response.status_code == 200:

        def _parse_response_200(
            data: object,
        ) -> (
            AuthChallengeEvent
            | CitationEvent
            | CompactionEvent
            | DoneEvent
            | ErrorEvent
            | MetaEvent
            | ProfileSwitchProposalEvent
            | QueuedEvent
            | RequiresActionEvent
            | RunEvent
            | RunStatusEvent
            | SessionStatusEvent
            | ThinkingEvent
            | TokenEvent
            | ToolCallEvent
            | ToolExecutingEvent
            | ToolOutputEvent
            | ToolProgressEvent
            | ToolResultEvent
            | TurnGapEvent
            | WatchingEvent
        ):
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_thread_event_type_0 = MetaEvent.from_dict(data)

                return componentsschemas_thread_event_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_thread_event_type_1 = TokenEvent.from_dict(data)

                return componentsschemas_thread_event_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_thread_event_type_2 = ThinkingEvent.from_dict(data)

                return componentsschemas_thread_event_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_thread_event_type_3 = ToolCallEvent.from_dict(data)

                return componentsschemas_thread_event_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_thread_event_type_4 = CompactionEvent.from_dict(data)

                return componentsschemas_thread_event_type_4
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_thread_event_type_5 = ToolExecutingEvent.from_dict(data)

                return componentsschemas_thread_event_type_5
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_thread_event_type_6 = ToolResultEvent.from_dict(data)

                return componentsschemas_thread_event_type_6
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_thread_event_type_7 = ProfileSwitchProposalEvent.from_dict(data)

                return componentsschemas_thread_event_type_7
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_thread_event_type_8 = CitationEvent.from_dict(data)

                return componentsschemas_thread_event_type_8
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_thread_event_type_9 = AuthChallengeEvent.from_dict(data)

                return componentsschemas_thread_event_type_9
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_thread_event_type_10 = ToolProgressEvent.from_dict(data)

                return componentsschemas_thread_event_type_10
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_thread_event_type_11 = ToolOutputEvent.from_dict(data)

                return componentsschemas_thread_event_type_11
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_thread_event_type_12 = RequiresActionEvent.from_dict(data)

                return componentsschemas_thread_event_type_12
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_thread_event_type_13 = ErrorEvent.from_dict(data)

                return componentsschemas_thread_event_type_13
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_thread_event_type_14 = QueuedEvent.from_dict(data)

                return componentsschemas_thread_event_type_14
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_thread_event_type_15 = WatchingEvent.from_dict(data)

                return componentsschemas_thread_event_type_15
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_thread_event_type_16 = TurnGapEvent.from_dict(data)

                return componentsschemas_thread_event_type_16
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_thread_event_type_17 = SessionStatusEvent.from_dict(data)

                return componentsschemas_thread_event_type_17
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_thread_event_type_18 = DoneEvent.from_dict(data)

                return componentsschemas_thread_event_type_18
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_thread_event_type_19 = RunEvent.from_dict(data)

                return componentsschemas_thread_event_type_19
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_thread_event_type_20 = RunStatusEvent.from_dict(data)

            return componentsschemas_thread_event_type_20

        response_200 = _parse_response_200(response.text)

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorBody.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = ErrorBody.from_dict(response.json())

        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    AuthChallengeEvent
    | CitationEvent
    | CompactionEvent
    | DoneEvent
    | ErrorEvent
    | MetaEvent
    | ProfileSwitchProposalEvent
    | QueuedEvent
    | RequiresActionEvent
    | RunEvent
    | RunStatusEvent
    | SessionStatusEvent
    | ThinkingEvent
    | TokenEvent
    | ToolCallEvent
    | ToolExecutingEvent
    | ToolOutputEvent
    | ToolProgressEvent
    | ToolResultEvent
    | TurnGapEvent
    | WatchingEvent
    | ErrorBody
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    code_session_id: UUID,
    *,
    client: AuthenticatedClient,
    after: str | Unset = UNSET,
    last_event_id: None | str | Unset = UNSET,
) -> Response[
    AuthChallengeEvent
    | CitationEvent
    | CompactionEvent
    | DoneEvent
    | ErrorEvent
    | MetaEvent
    | ProfileSwitchProposalEvent
    | QueuedEvent
    | RequiresActionEvent
    | RunEvent
    | RunStatusEvent
    | SessionStatusEvent
    | ThinkingEvent
    | TokenEvent
    | ToolCallEvent
    | ToolExecutingEvent
    | ToolOutputEvent
    | ToolProgressEvent
    | ToolResultEvent
    | TurnGapEvent
    | WatchingEvent
    | ErrorBody
]:
    """`GET /api/code-sessions/{id}/events`: the session thread's `follow`
    stream (`watching`, every turn, `turn_gap`), resumable, with the
    status changes made outside a turn (id-less `session_status`); it ends
    after `archived`, and an archived session's stream is that alone.

    Args:
        code_session_id (UUID):
        after (str | Unset):
        last_event_id (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AuthChallengeEvent | CitationEvent | CompactionEvent | DoneEvent | ErrorEvent | MetaEvent | ProfileSwitchProposalEvent | QueuedEvent | RequiresActionEvent | RunEvent | RunStatusEvent | SessionStatusEvent | ThinkingEvent | TokenEvent | ToolCallEvent | ToolExecutingEvent | ToolOutputEvent | ToolProgressEvent | ToolResultEvent | TurnGapEvent | WatchingEvent | ErrorBody]
    """

    kwargs = _get_kwargs(
        code_session_id=code_session_id,
        after=after,
        last_event_id=last_event_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    code_session_id: UUID,
    *,
    client: AuthenticatedClient,
    after: str | Unset = UNSET,
    last_event_id: None | str | Unset = UNSET,
) -> (
    AuthChallengeEvent
    | CitationEvent
    | CompactionEvent
    | DoneEvent
    | ErrorEvent
    | MetaEvent
    | ProfileSwitchProposalEvent
    | QueuedEvent
    | RequiresActionEvent
    | RunEvent
    | RunStatusEvent
    | SessionStatusEvent
    | ThinkingEvent
    | TokenEvent
    | ToolCallEvent
    | ToolExecutingEvent
    | ToolOutputEvent
    | ToolProgressEvent
    | ToolResultEvent
    | TurnGapEvent
    | WatchingEvent
    | ErrorBody
    | None
):
    """`GET /api/code-sessions/{id}/events`: the session thread's `follow`
    stream (`watching`, every turn, `turn_gap`), resumable, with the
    status changes made outside a turn (id-less `session_status`); it ends
    after `archived`, and an archived session's stream is that alone.

    Args:
        code_session_id (UUID):
        after (str | Unset):
        last_event_id (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AuthChallengeEvent | CitationEvent | CompactionEvent | DoneEvent | ErrorEvent | MetaEvent | ProfileSwitchProposalEvent | QueuedEvent | RequiresActionEvent | RunEvent | RunStatusEvent | SessionStatusEvent | ThinkingEvent | TokenEvent | ToolCallEvent | ToolExecutingEvent | ToolOutputEvent | ToolProgressEvent | ToolResultEvent | TurnGapEvent | WatchingEvent | ErrorBody
    """

    return sync_detailed(
        code_session_id=code_session_id,
        client=client,
        after=after,
        last_event_id=last_event_id,
    ).parsed


async def asyncio_detailed(
    code_session_id: UUID,
    *,
    client: AuthenticatedClient,
    after: str | Unset = UNSET,
    last_event_id: None | str | Unset = UNSET,
) -> Response[
    AuthChallengeEvent
    | CitationEvent
    | CompactionEvent
    | DoneEvent
    | ErrorEvent
    | MetaEvent
    | ProfileSwitchProposalEvent
    | QueuedEvent
    | RequiresActionEvent
    | RunEvent
    | RunStatusEvent
    | SessionStatusEvent
    | ThinkingEvent
    | TokenEvent
    | ToolCallEvent
    | ToolExecutingEvent
    | ToolOutputEvent
    | ToolProgressEvent
    | ToolResultEvent
    | TurnGapEvent
    | WatchingEvent
    | ErrorBody
]:
    """`GET /api/code-sessions/{id}/events`: the session thread's `follow`
    stream (`watching`, every turn, `turn_gap`), resumable, with the
    status changes made outside a turn (id-less `session_status`); it ends
    after `archived`, and an archived session's stream is that alone.

    Args:
        code_session_id (UUID):
        after (str | Unset):
        last_event_id (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AuthChallengeEvent | CitationEvent | CompactionEvent | DoneEvent | ErrorEvent | MetaEvent | ProfileSwitchProposalEvent | QueuedEvent | RequiresActionEvent | RunEvent | RunStatusEvent | SessionStatusEvent | ThinkingEvent | TokenEvent | ToolCallEvent | ToolExecutingEvent | ToolOutputEvent | ToolProgressEvent | ToolResultEvent | TurnGapEvent | WatchingEvent | ErrorBody]
    """

    kwargs = _get_kwargs(
        code_session_id=code_session_id,
        after=after,
        last_event_id=last_event_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    code_session_id: UUID,
    *,
    client: AuthenticatedClient,
    after: str | Unset = UNSET,
    last_event_id: None | str | Unset = UNSET,
) -> (
    AuthChallengeEvent
    | CitationEvent
    | CompactionEvent
    | DoneEvent
    | ErrorEvent
    | MetaEvent
    | ProfileSwitchProposalEvent
    | QueuedEvent
    | RequiresActionEvent
    | RunEvent
    | RunStatusEvent
    | SessionStatusEvent
    | ThinkingEvent
    | TokenEvent
    | ToolCallEvent
    | ToolExecutingEvent
    | ToolOutputEvent
    | ToolProgressEvent
    | ToolResultEvent
    | TurnGapEvent
    | WatchingEvent
    | ErrorBody
    | None
):
    """`GET /api/code-sessions/{id}/events`: the session thread's `follow`
    stream (`watching`, every turn, `turn_gap`), resumable, with the
    status changes made outside a turn (id-less `session_status`); it ends
    after `archived`, and an archived session's stream is that alone.

    Args:
        code_session_id (UUID):
        after (str | Unset):
        last_event_id (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AuthChallengeEvent | CitationEvent | CompactionEvent | DoneEvent | ErrorEvent | MetaEvent | ProfileSwitchProposalEvent | QueuedEvent | RequiresActionEvent | RunEvent | RunStatusEvent | SessionStatusEvent | ThinkingEvent | TokenEvent | ToolCallEvent | ToolExecutingEvent | ToolOutputEvent | ToolProgressEvent | ToolResultEvent | TurnGapEvent | WatchingEvent | ErrorBody
    """

    return (
        await asyncio_detailed(
            code_session_id=code_session_id,
            client=client,
            after=after,
            last_event_id=last_event_id,
        )
    ).parsed
