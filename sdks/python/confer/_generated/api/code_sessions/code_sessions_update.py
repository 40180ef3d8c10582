from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.patch_session import PatchSession
from ...models.session_view import SessionView
from ...types import Response


def _get_kwargs(
    code_session_id: UUID,
    *,
    body: PatchSession,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/api/code-sessions/{code_session_id}".format(
            code_session_id=quote(str(code_session_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | SessionView | None:
    if response.status_code == 200:
        response_200 = SessionView.from_dict(response.json())

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
) -> Response[ErrorBody | SessionView]:
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
    body: PatchSession,
) -> Response[ErrorBody | SessionView]:
    """`PATCH /api/code-sessions/{id}`

    Args:
        code_session_id (UUID):
        body (PatchSession): `PATCH /api/code-sessions/{id}` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | SessionView]
    """

    kwargs = _get_kwargs(
        code_session_id=code_session_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    code_session_id: UUID,
    *,
    client: AuthenticatedClient,
    body: PatchSession,
) -> ErrorBody | SessionView | None:
    """`PATCH /api/code-sessions/{id}`

    Args:
        code_session_id (UUID):
        body (PatchSession): `PATCH /api/code-sessions/{id}` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | SessionView
    """

    return sync_detailed(
        code_session_id=code_session_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    code_session_id: UUID,
    *,
    client: AuthenticatedClient,
    body: PatchSession,
) -> Response[ErrorBody | SessionView]:
    """`PATCH /api/code-sessions/{id}`

    Args:
        code_session_id (UUID):
        body (PatchSession): `PATCH /api/code-sessions/{id}` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | SessionView]
    """

    kwargs = _get_kwargs(
        code_session_id=code_session_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    code_session_id: UUID,
    *,
    client: AuthenticatedClient,
    body: PatchSession,
) -> ErrorBody | SessionView | None:
    """`PATCH /api/code-sessions/{id}`

    Args:
        code_session_id (UUID):
        body (PatchSession): `PATCH /api/code-sessions/{id}` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | SessionView
    """

    return (
        await asyncio_detailed(
            code_session_id=code_session_id,
            client=client,
            body=body,
        )
    ).parsed
