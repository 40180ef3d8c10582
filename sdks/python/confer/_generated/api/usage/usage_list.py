from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.usage_page import UsagePage
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    agent_id: UUID | Unset = UNSET,
    thread_id: UUID | Unset = UNSET,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    include_delegated: bool | Unset = UNSET,
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

    params["cursor"] = cursor

    params["limit"] = limit

    params["includeDelegated"] = include_delegated

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/usage",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | UsagePage | None:
    if response.status_code == 200:
        response_200 = UsagePage.from_dict(response.json())

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
) -> Response[ErrorBody | UsagePage]:
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
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    include_delegated: bool | Unset = UNSET,
) -> Response[ErrorBody | UsagePage]:
    """`GET /api/usage?agentId=&threadId=&limit=&cursor=`. Admins and members see
    the org's records; an end user sees the records of the threads it may read
    (naming a thread it may not read is 403).

    Args:
        agent_id (UUID | Unset): An agent of an organization.
        thread_id (UUID | Unset): A conversation thread on an agent.
        cursor (str | Unset):
        limit (int | Unset):
        include_delegated (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | UsagePage]
    """

    kwargs = _get_kwargs(
        agent_id=agent_id,
        thread_id=thread_id,
        cursor=cursor,
        limit=limit,
        include_delegated=include_delegated,
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
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    include_delegated: bool | Unset = UNSET,
) -> ErrorBody | UsagePage | None:
    """`GET /api/usage?agentId=&threadId=&limit=&cursor=`. Admins and members see
    the org's records; an end user sees the records of the threads it may read
    (naming a thread it may not read is 403).

    Args:
        agent_id (UUID | Unset): An agent of an organization.
        thread_id (UUID | Unset): A conversation thread on an agent.
        cursor (str | Unset):
        limit (int | Unset):
        include_delegated (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | UsagePage
    """

    return sync_detailed(
        client=client,
        agent_id=agent_id,
        thread_id=thread_id,
        cursor=cursor,
        limit=limit,
        include_delegated=include_delegated,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    agent_id: UUID | Unset = UNSET,
    thread_id: UUID | Unset = UNSET,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    include_delegated: bool | Unset = UNSET,
) -> Response[ErrorBody | UsagePage]:
    """`GET /api/usage?agentId=&threadId=&limit=&cursor=`. Admins and members see
    the org's records; an end user sees the records of the threads it may read
    (naming a thread it may not read is 403).

    Args:
        agent_id (UUID | Unset): An agent of an organization.
        thread_id (UUID | Unset): A conversation thread on an agent.
        cursor (str | Unset):
        limit (int | Unset):
        include_delegated (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | UsagePage]
    """

    kwargs = _get_kwargs(
        agent_id=agent_id,
        thread_id=thread_id,
        cursor=cursor,
        limit=limit,
        include_delegated=include_delegated,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    agent_id: UUID | Unset = UNSET,
    thread_id: UUID | Unset = UNSET,
    cursor: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    include_delegated: bool | Unset = UNSET,
) -> ErrorBody | UsagePage | None:
    """`GET /api/usage?agentId=&threadId=&limit=&cursor=`. Admins and members see
    the org's records; an end user sees the records of the threads it may read
    (naming a thread it may not read is 403).

    Args:
        agent_id (UUID | Unset): An agent of an organization.
        thread_id (UUID | Unset): A conversation thread on an agent.
        cursor (str | Unset):
        limit (int | Unset):
        include_delegated (bool | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | UsagePage
    """

    return (
        await asyncio_detailed(
            client=client,
            agent_id=agent_id,
            thread_id=thread_id,
            cursor=cursor,
            limit=limit,
            include_delegated=include_delegated,
        )
    ).parsed
