from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.neighbours import Neighbours
from ...types import Response


def _get_kwargs(
    plan_id: UUID,
    todo_id: UUID,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/plans/{plan_id}/todos/{todo_id}/deps".format(
            plan_id=quote(str(plan_id), safe=""),
            todo_id=quote(str(todo_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | Neighbours | None:
    if response.status_code == 200:
        response_200 = Neighbours.from_dict(response.json())

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
) -> Response[ErrorBody | Neighbours]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    plan_id: UUID,
    todo_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorBody | Neighbours]:
    """`GET /api/plans/{id}/todos/{todoId}/deps`

    Args:
        plan_id (UUID):
        todo_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Neighbours]
    """

    kwargs = _get_kwargs(
        plan_id=plan_id,
        todo_id=todo_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    plan_id: UUID,
    todo_id: UUID,
    *,
    client: AuthenticatedClient,
) -> ErrorBody | Neighbours | None:
    """`GET /api/plans/{id}/todos/{todoId}/deps`

    Args:
        plan_id (UUID):
        todo_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Neighbours
    """

    return sync_detailed(
        plan_id=plan_id,
        todo_id=todo_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    plan_id: UUID,
    todo_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorBody | Neighbours]:
    """`GET /api/plans/{id}/todos/{todoId}/deps`

    Args:
        plan_id (UUID):
        todo_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Neighbours]
    """

    kwargs = _get_kwargs(
        plan_id=plan_id,
        todo_id=todo_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    plan_id: UUID,
    todo_id: UUID,
    *,
    client: AuthenticatedClient,
) -> ErrorBody | Neighbours | None:
    """`GET /api/plans/{id}/todos/{todoId}/deps`

    Args:
        plan_id (UUID):
        todo_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Neighbours
    """

    return (
        await asyncio_detailed(
            plan_id=plan_id,
            todo_id=todo_id,
            client=client,
        )
    ).parsed
