from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.diff_view import DiffView
from ...models.error_body import ErrorBody
from ...types import Response


def _get_kwargs(
    code_session_id: UUID,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/code-sessions/{code_session_id}/diff".format(
            code_session_id=quote(str(code_session_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DiffView | ErrorBody | None:
    if response.status_code == 200:
        response_200 = DiffView.from_dict(response.json())

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
) -> Response[DiffView | ErrorBody]:
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
) -> Response[DiffView | ErrorBody]:
    """`GET /api/code-sessions/{id}/diff`

    Args:
        code_session_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DiffView | ErrorBody]
    """

    kwargs = _get_kwargs(
        code_session_id=code_session_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    code_session_id: UUID,
    *,
    client: AuthenticatedClient,
) -> DiffView | ErrorBody | None:
    """`GET /api/code-sessions/{id}/diff`

    Args:
        code_session_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DiffView | ErrorBody
    """

    return sync_detailed(
        code_session_id=code_session_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    code_session_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[DiffView | ErrorBody]:
    """`GET /api/code-sessions/{id}/diff`

    Args:
        code_session_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DiffView | ErrorBody]
    """

    kwargs = _get_kwargs(
        code_session_id=code_session_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    code_session_id: UUID,
    *,
    client: AuthenticatedClient,
) -> DiffView | ErrorBody | None:
    """`GET /api/code-sessions/{id}/diff`

    Args:
        code_session_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DiffView | ErrorBody
    """

    return (
        await asyncio_detailed(
            code_session_id=code_session_id,
            client=client,
        )
    ).parsed
