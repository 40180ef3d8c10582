from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.deps import Deps
from ...models.error_body import ErrorBody
from ...models.stale_body import StaleBody
from ...models.todo import Todo
from ...types import UNSET, Response, Unset


def _get_kwargs(
    plan_id: UUID,
    todo_id: UUID,
    *,
    body: Deps,
    if_match: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/api/plans/{plan_id}/todos/{todo_id}/deps".format(
            plan_id=quote(str(plan_id), safe=""),
            todo_id=quote(str(todo_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | StaleBody | Todo | None:
    if response.status_code == 200:
        response_200 = Todo.from_dict(response.json())

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

    if response.status_code == 412:
        response_412 = StaleBody.from_dict(response.json())

        return response_412

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
) -> Response[ErrorBody | StaleBody | Todo]:
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
    body: Deps,
    if_match: None | str | Unset = UNSET,
) -> Response[ErrorBody | StaleBody | Todo]:
    """`DELETE /api/plans/{id}/todos/{todoId}/deps`: removes edges (absent ones
    ignored).

    Args:
        plan_id (UUID):
        todo_id (UUID):
        if_match (None | str | Unset):
        body (Deps): The deps routes' body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | StaleBody | Todo]
    """

    kwargs = _get_kwargs(
        plan_id=plan_id,
        todo_id=todo_id,
        body=body,
        if_match=if_match,
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
    body: Deps,
    if_match: None | str | Unset = UNSET,
) -> ErrorBody | StaleBody | Todo | None:
    """`DELETE /api/plans/{id}/todos/{todoId}/deps`: removes edges (absent ones
    ignored).

    Args:
        plan_id (UUID):
        todo_id (UUID):
        if_match (None | str | Unset):
        body (Deps): The deps routes' body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | StaleBody | Todo
    """

    return sync_detailed(
        plan_id=plan_id,
        todo_id=todo_id,
        client=client,
        body=body,
        if_match=if_match,
    ).parsed


async def asyncio_detailed(
    plan_id: UUID,
    todo_id: UUID,
    *,
    client: AuthenticatedClient,
    body: Deps,
    if_match: None | str | Unset = UNSET,
) -> Response[ErrorBody | StaleBody | Todo]:
    """`DELETE /api/plans/{id}/todos/{todoId}/deps`: removes edges (absent ones
    ignored).

    Args:
        plan_id (UUID):
        todo_id (UUID):
        if_match (None | str | Unset):
        body (Deps): The deps routes' body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | StaleBody | Todo]
    """

    kwargs = _get_kwargs(
        plan_id=plan_id,
        todo_id=todo_id,
        body=body,
        if_match=if_match,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    plan_id: UUID,
    todo_id: UUID,
    *,
    client: AuthenticatedClient,
    body: Deps,
    if_match: None | str | Unset = UNSET,
) -> ErrorBody | StaleBody | Todo | None:
    """`DELETE /api/plans/{id}/todos/{todoId}/deps`: removes edges (absent ones
    ignored).

    Args:
        plan_id (UUID):
        todo_id (UUID):
        if_match (None | str | Unset):
        body (Deps): The deps routes' body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | StaleBody | Todo
    """

    return (
        await asyncio_detailed(
            plan_id=plan_id,
            todo_id=todo_id,
            client=client,
            body=body,
            if_match=if_match,
        )
    ).parsed
