from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.trace_page_view import TracePageView
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    agent_id: UUID | Unset = UNSET,
    thread_id: UUID | Unset = UNSET,
    runner_id: UUID | Unset = UNSET,
    run_id: UUID | Unset = UNSET,
    status: str | Unset = UNSET,
    q: str | Unset = UNSET,
    since: str | Unset = UNSET,
    until: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_agent_id: str | Unset = UNSET
    if not isinstance(agent_id, Unset):
        json_agent_id = str(agent_id)
    params["agentId"] = json_agent_id

    json_thread_id: str | Unset = UNSET
    if not isinstance(thread_id, Unset):
        json_thread_id = str(thread_id)
    params["threadId"] = json_thread_id

    json_runner_id: str | Unset = UNSET
    if not isinstance(runner_id, Unset):
        json_runner_id = str(runner_id)
    params["runnerId"] = json_runner_id

    json_run_id: str | Unset = UNSET
    if not isinstance(run_id, Unset):
        json_run_id = str(run_id)
    params["runId"] = json_run_id

    params["status"] = status

    params["q"] = q

    params["since"] = since

    params["until"] = until

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/logs",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | TracePageView | None:
    if response.status_code == 200:
        response_200 = TracePageView.from_dict(response.json())

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
) -> Response[ErrorBody | TracePageView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    agent_id: UUID | Unset = UNSET,
    thread_id: UUID | Unset = UNSET,
    runner_id: UUID | Unset = UNSET,
    run_id: UUID | Unset = UNSET,
    status: str | Unset = UNSET,
    q: str | Unset = UNSET,
    since: str | Unset = UNSET,
    until: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> Response[ErrorBody | TracePageView]:
    """`GET /api/logs`: traces newest first, filtered; `nextCursor` is null at
    the end. A page may come back short when the filters left most of the
    5,000 traces it may read behind (it then has a cursor).

    Args:
        agent_id (UUID | Unset): An agent of an organization.
        thread_id (UUID | Unset): A conversation thread on an agent.
        runner_id (UUID | Unset):
        run_id (UUID | Unset):
        status (str | Unset):
        q (str | Unset):
        since (str | Unset):
        until (str | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | TracePageView]
    """

    kwargs = _get_kwargs(
        agent_id=agent_id,
        thread_id=thread_id,
        runner_id=runner_id,
        run_id=run_id,
        status=status,
        q=q,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    agent_id: UUID | Unset = UNSET,
    thread_id: UUID | Unset = UNSET,
    runner_id: UUID | Unset = UNSET,
    run_id: UUID | Unset = UNSET,
    status: str | Unset = UNSET,
    q: str | Unset = UNSET,
    since: str | Unset = UNSET,
    until: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> ErrorBody | TracePageView | None:
    """`GET /api/logs`: traces newest first, filtered; `nextCursor` is null at
    the end. A page may come back short when the filters left most of the
    5,000 traces it may read behind (it then has a cursor).

    Args:
        agent_id (UUID | Unset): An agent of an organization.
        thread_id (UUID | Unset): A conversation thread on an agent.
        runner_id (UUID | Unset):
        run_id (UUID | Unset):
        status (str | Unset):
        q (str | Unset):
        since (str | Unset):
        until (str | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | TracePageView
    """

    return sync_detailed(
        client=client,
        agent_id=agent_id,
        thread_id=thread_id,
        runner_id=runner_id,
        run_id=run_id,
        status=status,
        q=q,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    agent_id: UUID | Unset = UNSET,
    thread_id: UUID | Unset = UNSET,
    runner_id: UUID | Unset = UNSET,
    run_id: UUID | Unset = UNSET,
    status: str | Unset = UNSET,
    q: str | Unset = UNSET,
    since: str | Unset = UNSET,
    until: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> Response[ErrorBody | TracePageView]:
    """`GET /api/logs`: traces newest first, filtered; `nextCursor` is null at
    the end. A page may come back short when the filters left most of the
    5,000 traces it may read behind (it then has a cursor).

    Args:
        agent_id (UUID | Unset): An agent of an organization.
        thread_id (UUID | Unset): A conversation thread on an agent.
        runner_id (UUID | Unset):
        run_id (UUID | Unset):
        status (str | Unset):
        q (str | Unset):
        since (str | Unset):
        until (str | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | TracePageView]
    """

    kwargs = _get_kwargs(
        agent_id=agent_id,
        thread_id=thread_id,
        runner_id=runner_id,
        run_id=run_id,
        status=status,
        q=q,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    agent_id: UUID | Unset = UNSET,
    thread_id: UUID | Unset = UNSET,
    runner_id: UUID | Unset = UNSET,
    run_id: UUID | Unset = UNSET,
    status: str | Unset = UNSET,
    q: str | Unset = UNSET,
    since: str | Unset = UNSET,
    until: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> ErrorBody | TracePageView | None:
    """`GET /api/logs`: traces newest first, filtered; `nextCursor` is null at
    the end. A page may come back short when the filters left most of the
    5,000 traces it may read behind (it then has a cursor).

    Args:
        agent_id (UUID | Unset): An agent of an organization.
        thread_id (UUID | Unset): A conversation thread on an agent.
        runner_id (UUID | Unset):
        run_id (UUID | Unset):
        status (str | Unset):
        q (str | Unset):
        since (str | Unset):
        until (str | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | TracePageView
    """

    return (
        await asyncio_detailed(
            client=client,
            agent_id=agent_id,
            thread_id=thread_id,
            runner_id=runner_id,
            run_id=run_id,
            status=status,
            q=q,
            since=since,
            until=until,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
