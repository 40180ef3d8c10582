from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...types import UNSET, Response, Unset


def _get_kwargs(
    channel_id: UUID,
    *,
    hub_mode: str | Unset = UNSET,
    hub_verify_token: str | Unset = UNSET,
    hub_challenge: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["hub.mode"] = hub_mode

    params["hub.verify_token"] = hub_verify_token

    params["hub.challenge"] = hub_challenge

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/channels/{channel_id}/webhook".format(
            channel_id=quote(str(channel_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | ErrorBody | None:
    if response.status_code == 200:
        response_200 = cast(Any, None)
        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 403:
        response_403 = ErrorBody.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 500:
        response_500 = ErrorBody.from_dict(response.json())

        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Any | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    channel_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    hub_mode: str | Unset = UNSET,
    hub_verify_token: str | Unset = UNSET,
    hub_challenge: str | Unset = UNSET,
) -> Response[Any | ErrorBody]:
    """`GET /api/channels/{channelId}/webhook`: WhatsApp's subscription check.

    Args:
        channel_id (UUID):
        hub_mode (str | Unset):
        hub_verify_token (str | Unset):
        hub_challenge (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody]
    """

    kwargs = _get_kwargs(
        channel_id=channel_id,
        hub_mode=hub_mode,
        hub_verify_token=hub_verify_token,
        hub_challenge=hub_challenge,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    channel_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    hub_mode: str | Unset = UNSET,
    hub_verify_token: str | Unset = UNSET,
    hub_challenge: str | Unset = UNSET,
) -> Any | ErrorBody | None:
    """`GET /api/channels/{channelId}/webhook`: WhatsApp's subscription check.

    Args:
        channel_id (UUID):
        hub_mode (str | Unset):
        hub_verify_token (str | Unset):
        hub_challenge (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody
    """

    return sync_detailed(
        channel_id=channel_id,
        client=client,
        hub_mode=hub_mode,
        hub_verify_token=hub_verify_token,
        hub_challenge=hub_challenge,
    ).parsed


async def asyncio_detailed(
    channel_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    hub_mode: str | Unset = UNSET,
    hub_verify_token: str | Unset = UNSET,
    hub_challenge: str | Unset = UNSET,
) -> Response[Any | ErrorBody]:
    """`GET /api/channels/{channelId}/webhook`: WhatsApp's subscription check.

    Args:
        channel_id (UUID):
        hub_mode (str | Unset):
        hub_verify_token (str | Unset):
        hub_challenge (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody]
    """

    kwargs = _get_kwargs(
        channel_id=channel_id,
        hub_mode=hub_mode,
        hub_verify_token=hub_verify_token,
        hub_challenge=hub_challenge,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    channel_id: UUID,
    *,
    client: AuthenticatedClient | Client,
    hub_mode: str | Unset = UNSET,
    hub_verify_token: str | Unset = UNSET,
    hub_challenge: str | Unset = UNSET,
) -> Any | ErrorBody | None:
    """`GET /api/channels/{channelId}/webhook`: WhatsApp's subscription check.

    Args:
        channel_id (UUID):
        hub_mode (str | Unset):
        hub_verify_token (str | Unset):
        hub_challenge (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody
    """

    return (
        await asyncio_detailed(
            channel_id=channel_id,
            client=client,
            hub_mode=hub_mode,
            hub_verify_token=hub_verify_token,
            hub_challenge=hub_challenge,
        )
    ).parsed
