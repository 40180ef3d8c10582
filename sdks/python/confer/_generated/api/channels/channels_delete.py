from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.ok import Ok
from ...types import Response


def _get_kwargs(
    agent_id: UUID,
    channel_id: UUID,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/api/agents/{agent_id}/channels/{channel_id}".format(
            agent_id=quote(str(agent_id), safe=""),
            channel_id=quote(str(channel_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | Ok | None:
    if response.status_code == 200:
        response_200 = Ok.from_dict(response.json())

        return response_200

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
) -> Response[ErrorBody | Ok]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    agent_id: UUID,
    channel_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorBody | Ok]:
    """`DELETE /api/agents/{id}/channels/{channelId}`: the channel, its
    contacts, jobs and keys; its threads stay.

    Args:
        agent_id (UUID):
        channel_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Ok]
    """

    kwargs = _get_kwargs(
        agent_id=agent_id,
        channel_id=channel_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    agent_id: UUID,
    channel_id: UUID,
    *,
    client: AuthenticatedClient,
) -> ErrorBody | Ok | None:
    """`DELETE /api/agents/{id}/channels/{channelId}`: the channel, its
    contacts, jobs and keys; its threads stay.

    Args:
        agent_id (UUID):
        channel_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Ok
    """

    return sync_detailed(
        agent_id=agent_id,
        channel_id=channel_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    agent_id: UUID,
    channel_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorBody | Ok]:
    """`DELETE /api/agents/{id}/channels/{channelId}`: the channel, its
    contacts, jobs and keys; its threads stay.

    Args:
        agent_id (UUID):
        channel_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Ok]
    """

    kwargs = _get_kwargs(
        agent_id=agent_id,
        channel_id=channel_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    agent_id: UUID,
    channel_id: UUID,
    *,
    client: AuthenticatedClient,
) -> ErrorBody | Ok | None:
    """`DELETE /api/agents/{id}/channels/{channelId}`: the channel, its
    contacts, jobs and keys; its threads stay.

    Args:
        agent_id (UUID):
        channel_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Ok
    """

    return (
        await asyncio_detailed(
            agent_id=agent_id,
            channel_id=channel_id,
            client=client,
        )
    ).parsed
