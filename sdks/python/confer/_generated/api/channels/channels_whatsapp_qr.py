from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.qr_answer import QrAnswer
from ...types import UNSET, Response, Unset


def _get_kwargs(
    agent_id: UUID,
    *,
    channel_id: UUID | Unset = UNSET,
    format_: str | Unset = UNSET,
    size: int | Unset = UNSET,
    text: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_channel_id: str | Unset = UNSET
    if not isinstance(channel_id, Unset):
        json_channel_id = str(channel_id)
    params["channelId"] = json_channel_id

    params["format"] = format_

    params["size"] = size

    params["text"] = text

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/agents/{agent_id}/channels/whatsapp/qr".format(
            agent_id=quote(str(agent_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | QrAnswer | None:
    if response.status_code == 200:
        response_200 = QrAnswer.from_dict(response.json())

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
) -> Response[ErrorBody | QrAnswer]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    agent_id: UUID,
    *,
    client: AuthenticatedClient,
    channel_id: UUID | Unset = UNSET,
    format_: str | Unset = UNSET,
    size: int | Unset = UNSET,
    text: str | Unset = UNSET,
) -> Response[ErrorBody | QrAnswer]:
    """`GET /api/agents/{id}/channels/whatsapp/qr`

    Args:
        agent_id (UUID):
        channel_id (UUID | Unset):
        format_ (str | Unset):
        size (int | Unset):
        text (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | QrAnswer]
    """

    kwargs = _get_kwargs(
        agent_id=agent_id,
        channel_id=channel_id,
        format_=format_,
        size=size,
        text=text,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    agent_id: UUID,
    *,
    client: AuthenticatedClient,
    channel_id: UUID | Unset = UNSET,
    format_: str | Unset = UNSET,
    size: int | Unset = UNSET,
    text: str | Unset = UNSET,
) -> ErrorBody | QrAnswer | None:
    """`GET /api/agents/{id}/channels/whatsapp/qr`

    Args:
        agent_id (UUID):
        channel_id (UUID | Unset):
        format_ (str | Unset):
        size (int | Unset):
        text (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | QrAnswer
    """

    return sync_detailed(
        agent_id=agent_id,
        client=client,
        channel_id=channel_id,
        format_=format_,
        size=size,
        text=text,
    ).parsed


async def asyncio_detailed(
    agent_id: UUID,
    *,
    client: AuthenticatedClient,
    channel_id: UUID | Unset = UNSET,
    format_: str | Unset = UNSET,
    size: int | Unset = UNSET,
    text: str | Unset = UNSET,
) -> Response[ErrorBody | QrAnswer]:
    """`GET /api/agents/{id}/channels/whatsapp/qr`

    Args:
        agent_id (UUID):
        channel_id (UUID | Unset):
        format_ (str | Unset):
        size (int | Unset):
        text (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | QrAnswer]
    """

    kwargs = _get_kwargs(
        agent_id=agent_id,
        channel_id=channel_id,
        format_=format_,
        size=size,
        text=text,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    agent_id: UUID,
    *,
    client: AuthenticatedClient,
    channel_id: UUID | Unset = UNSET,
    format_: str | Unset = UNSET,
    size: int | Unset = UNSET,
    text: str | Unset = UNSET,
) -> ErrorBody | QrAnswer | None:
    """`GET /api/agents/{id}/channels/whatsapp/qr`

    Args:
        agent_id (UUID):
        channel_id (UUID | Unset):
        format_ (str | Unset):
        size (int | Unset):
        text (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | QrAnswer
    """

    return (
        await asyncio_detailed(
            agent_id=agent_id,
            client=client,
            channel_id=channel_id,
            format_=format_,
            size=size,
            text=text,
        )
    ).parsed
