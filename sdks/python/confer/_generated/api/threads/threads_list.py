from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.thread_page import ThreadPage
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    agent_id: UUID | Unset = UNSET,
    parent_thread_id: UUID | Unset = UNSET,
    project_id: UUID | Unset = UNSET,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_agent_id: str | Unset = UNSET
    if not isinstance(agent_id, Unset):
        json_agent_id = str(agent_id)
    params["agentId"] = json_agent_id

    json_parent_thread_id: str | Unset = UNSET
    if not isinstance(parent_thread_id, Unset):
        json_parent_thread_id = str(parent_thread_id)
    params["parentThreadId"] = json_parent_thread_id

    json_project_id: str | Unset = UNSET
    if not isinstance(project_id, Unset):
        json_project_id = str(project_id)
    params["projectId"] = json_project_id

    params["cursor"] = cursor

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/threads",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | ThreadPage | None:
    if response.status_code == 200:
        response_200 = ThreadPage.from_dict(response.json())

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
) -> Response[ErrorBody | ThreadPage]:
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
    parent_thread_id: UUID | Unset = UNSET,
    project_id: UUID | Unset = UNSET,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> Response[ErrorBody | ThreadPage]:
    """`GET /api/threads?agentId=&cursor=&limit=`: newest first. A JWT user sees
    the threads it created and the multiplayer threads it participates in.

    Args:
        agent_id (UUID | Unset): An agent of an organization.
        parent_thread_id (UUID | Unset): A conversation thread on an agent.
        project_id (UUID | Unset): A project grouping an org's threads, agents and runners
            (`agent-extras.md` §5).
        cursor (str | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ThreadPage]
    """

    kwargs = _get_kwargs(
        agent_id=agent_id,
        parent_thread_id=parent_thread_id,
        project_id=project_id,
        cursor=cursor,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    agent_id: UUID | Unset = UNSET,
    parent_thread_id: UUID | Unset = UNSET,
    project_id: UUID | Unset = UNSET,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> ErrorBody | ThreadPage | None:
    """`GET /api/threads?agentId=&cursor=&limit=`: newest first. A JWT user sees
    the threads it created and the multiplayer threads it participates in.

    Args:
        agent_id (UUID | Unset): An agent of an organization.
        parent_thread_id (UUID | Unset): A conversation thread on an agent.
        project_id (UUID | Unset): A project grouping an org's threads, agents and runners
            (`agent-extras.md` §5).
        cursor (str | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ThreadPage
    """

    return sync_detailed(
        client=client,
        agent_id=agent_id,
        parent_thread_id=parent_thread_id,
        project_id=project_id,
        cursor=cursor,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    agent_id: UUID | Unset = UNSET,
    parent_thread_id: UUID | Unset = UNSET,
    project_id: UUID | Unset = UNSET,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> Response[ErrorBody | ThreadPage]:
    """`GET /api/threads?agentId=&cursor=&limit=`: newest first. A JWT user sees
    the threads it created and the multiplayer threads it participates in.

    Args:
        agent_id (UUID | Unset): An agent of an organization.
        parent_thread_id (UUID | Unset): A conversation thread on an agent.
        project_id (UUID | Unset): A project grouping an org's threads, agents and runners
            (`agent-extras.md` §5).
        cursor (str | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ThreadPage]
    """

    kwargs = _get_kwargs(
        agent_id=agent_id,
        parent_thread_id=parent_thread_id,
        project_id=project_id,
        cursor=cursor,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    agent_id: UUID | Unset = UNSET,
    parent_thread_id: UUID | Unset = UNSET,
    project_id: UUID | Unset = UNSET,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
) -> ErrorBody | ThreadPage | None:
    """`GET /api/threads?agentId=&cursor=&limit=`: newest first. A JWT user sees
    the threads it created and the multiplayer threads it participates in.

    Args:
        agent_id (UUID | Unset): An agent of an organization.
        parent_thread_id (UUID | Unset): A conversation thread on an agent.
        project_id (UUID | Unset): A project grouping an org's threads, agents and runners
            (`agent-extras.md` §5).
        cursor (str | Unset):
        limit (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ThreadPage
    """

    return (
        await asyncio_detailed(
            client=client,
            agent_id=agent_id,
            parent_thread_id=parent_thread_id,
            project_id=project_id,
            cursor=cursor,
            limit=limit,
        )
    ).parsed
