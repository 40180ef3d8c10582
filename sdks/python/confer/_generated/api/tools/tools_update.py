from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.tool_view import ToolView
from ...models.update_tool import UpdateTool
from ...types import Response


def _get_kwargs(
    tool_id: UUID,
    *,
    body: UpdateTool,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/api/tools/{tool_id}".format(
            tool_id=quote(str(tool_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | ToolView | None:
    if response.status_code == 200:
        response_200 = ToolView.from_dict(response.json())

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

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

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
) -> Response[ErrorBody | ToolView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    tool_id: UUID,
    *,
    client: AuthenticatedClient,
    body: UpdateTool,
) -> Response[ErrorBody | ToolView]:
    """`PATCH /api/tools/{id}`: one transaction (a concurrent delete wins: 404).
    `rotateSecret: true` replaces the signing secret (the old one stops
    working at once) and shows the new one.

    Args:
        tool_id (UUID):
        body (UpdateTool): `PATCH /api/tools/{id}` body: only the fields present change.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ToolView]
    """

    kwargs = _get_kwargs(
        tool_id=tool_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    tool_id: UUID,
    *,
    client: AuthenticatedClient,
    body: UpdateTool,
) -> ErrorBody | ToolView | None:
    """`PATCH /api/tools/{id}`: one transaction (a concurrent delete wins: 404).
    `rotateSecret: true` replaces the signing secret (the old one stops
    working at once) and shows the new one.

    Args:
        tool_id (UUID):
        body (UpdateTool): `PATCH /api/tools/{id}` body: only the fields present change.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ToolView
    """

    return sync_detailed(
        tool_id=tool_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    tool_id: UUID,
    *,
    client: AuthenticatedClient,
    body: UpdateTool,
) -> Response[ErrorBody | ToolView]:
    """`PATCH /api/tools/{id}`: one transaction (a concurrent delete wins: 404).
    `rotateSecret: true` replaces the signing secret (the old one stops
    working at once) and shows the new one.

    Args:
        tool_id (UUID):
        body (UpdateTool): `PATCH /api/tools/{id}` body: only the fields present change.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ToolView]
    """

    kwargs = _get_kwargs(
        tool_id=tool_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    tool_id: UUID,
    *,
    client: AuthenticatedClient,
    body: UpdateTool,
) -> ErrorBody | ToolView | None:
    """`PATCH /api/tools/{id}`: one transaction (a concurrent delete wins: 404).
    `rotateSecret: true` replaces the signing secret (the old one stops
    working at once) and shows the new one.

    Args:
        tool_id (UUID):
        body (UpdateTool): `PATCH /api/tools/{id}` body: only the fields present change.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ToolView
    """

    return (
        await asyncio_detailed(
            tool_id=tool_id,
            client=client,
            body=body,
        )
    ).parsed
