from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.mcp_view import McpView
from ...models.update_mcp import UpdateMcp
from ...types import Response


def _get_kwargs(
    mcp_id: UUID,
    *,
    body: UpdateMcp,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/api/mcps/{mcp_id}".format(
            mcp_id=quote(str(mcp_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | McpView | None:
    if response.status_code == 200:
        response_200 = McpView.from_dict(response.json())

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
) -> Response[ErrorBody | McpView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    mcp_id: UUID,
    *,
    client: AuthenticatedClient,
    body: UpdateMcp,
) -> Response[ErrorBody | McpView]:
    """`PATCH /api/mcps/{id}`: one transaction (a concurrent delete wins:
    404); the server's sessions are closed and it is listed again.

    Args:
        mcp_id (UUID):
        body (UpdateMcp): `PATCH /api/mcps/{id}` body: the create fields but `transport`;
            `credentials` replaces the stored ones (`null` removes them).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | McpView]
    """

    kwargs = _get_kwargs(
        mcp_id=mcp_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    mcp_id: UUID,
    *,
    client: AuthenticatedClient,
    body: UpdateMcp,
) -> ErrorBody | McpView | None:
    """`PATCH /api/mcps/{id}`: one transaction (a concurrent delete wins:
    404); the server's sessions are closed and it is listed again.

    Args:
        mcp_id (UUID):
        body (UpdateMcp): `PATCH /api/mcps/{id}` body: the create fields but `transport`;
            `credentials` replaces the stored ones (`null` removes them).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | McpView
    """

    return sync_detailed(
        mcp_id=mcp_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    mcp_id: UUID,
    *,
    client: AuthenticatedClient,
    body: UpdateMcp,
) -> Response[ErrorBody | McpView]:
    """`PATCH /api/mcps/{id}`: one transaction (a concurrent delete wins:
    404); the server's sessions are closed and it is listed again.

    Args:
        mcp_id (UUID):
        body (UpdateMcp): `PATCH /api/mcps/{id}` body: the create fields but `transport`;
            `credentials` replaces the stored ones (`null` removes them).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | McpView]
    """

    kwargs = _get_kwargs(
        mcp_id=mcp_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    mcp_id: UUID,
    *,
    client: AuthenticatedClient,
    body: UpdateMcp,
) -> ErrorBody | McpView | None:
    """`PATCH /api/mcps/{id}`: one transaction (a concurrent delete wins:
    404); the server's sessions are closed and it is listed again.

    Args:
        mcp_id (UUID):
        body (UpdateMcp): `PATCH /api/mcps/{id}` body: the create fields but `transport`;
            `credentials` replaces the stored ones (`null` removes them).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | McpView
    """

    return (
        await asyncio_detailed(
            mcp_id=mcp_id,
            client=client,
            body=body,
        )
    ).parsed
