from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.profile_view import ProfileView
from ...models.put_capabilities import PutCapabilities
from ...types import UNSET, Response, Unset


def _get_kwargs(
    agent_id: UUID,
    *,
    body: PutCapabilities,
    if_match: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/api/agents/{agent_id}/marketplace/capabilities".format(
            agent_id=quote(str(agent_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | ProfileView | None:
    if response.status_code == 200:
        response_200 = ProfileView.from_dict(response.json())

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

    if response.status_code == 413:
        response_413 = ErrorBody.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

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
) -> Response[ErrorBody | ProfileView]:
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
    body: PutCapabilities,
    if_match: None | str | Unset = UNSET,
) -> Response[ErrorBody | ProfileView]:
    """`PUT /api/agents/{id}/marketplace/capabilities`: replaces them (a
    profile never stored is stored as a draft).

    Args:
        agent_id (UUID):
        if_match (None | str | Unset):
        body (PutCapabilities): `PUT …/marketplace/capabilities` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ProfileView]
    """

    kwargs = _get_kwargs(
        agent_id=agent_id,
        body=body,
        if_match=if_match,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    agent_id: UUID,
    *,
    client: AuthenticatedClient,
    body: PutCapabilities,
    if_match: None | str | Unset = UNSET,
) -> ErrorBody | ProfileView | None:
    """`PUT /api/agents/{id}/marketplace/capabilities`: replaces them (a
    profile never stored is stored as a draft).

    Args:
        agent_id (UUID):
        if_match (None | str | Unset):
        body (PutCapabilities): `PUT …/marketplace/capabilities` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ProfileView
    """

    return sync_detailed(
        agent_id=agent_id,
        client=client,
        body=body,
        if_match=if_match,
    ).parsed


async def asyncio_detailed(
    agent_id: UUID,
    *,
    client: AuthenticatedClient,
    body: PutCapabilities,
    if_match: None | str | Unset = UNSET,
) -> Response[ErrorBody | ProfileView]:
    """`PUT /api/agents/{id}/marketplace/capabilities`: replaces them (a
    profile never stored is stored as a draft).

    Args:
        agent_id (UUID):
        if_match (None | str | Unset):
        body (PutCapabilities): `PUT …/marketplace/capabilities` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ProfileView]
    """

    kwargs = _get_kwargs(
        agent_id=agent_id,
        body=body,
        if_match=if_match,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    agent_id: UUID,
    *,
    client: AuthenticatedClient,
    body: PutCapabilities,
    if_match: None | str | Unset = UNSET,
) -> ErrorBody | ProfileView | None:
    """`PUT /api/agents/{id}/marketplace/capabilities`: replaces them (a
    profile never stored is stored as a draft).

    Args:
        agent_id (UUID):
        if_match (None | str | Unset):
        body (PutCapabilities): `PUT …/marketplace/capabilities` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ProfileView
    """

    return (
        await asyncio_detailed(
            agent_id=agent_id,
            client=client,
            body=body,
            if_match=if_match,
        )
    ).parsed
