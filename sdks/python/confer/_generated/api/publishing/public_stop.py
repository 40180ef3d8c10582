from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.stop_body import StopBody
from ...models.visitor_stopped import VisitorStopped
from ...types import Response


def _get_kwargs(
    slug: str,
    thread_id: UUID,
    *,
    body: None | StopBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/public/chat/{slug}/threads/{thread_id}/stop".format(
            slug=quote(str(slug), safe=""),
            thread_id=quote(str(thread_id), safe=""),
        ),
    }

    if isinstance(body, StopBody):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | VisitorStopped | None:
    if response.status_code == 200:
        response_200 = VisitorStopped.from_dict(response.json())

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
) -> Response[ErrorBody | VisitorStopped]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    slug: str,
    thread_id: UUID,
    *,
    client: AuthenticatedClient,
    body: None | StopBody,
) -> Response[ErrorBody | VisitorStopped]:
    """`POST …/threads/{id}/stop`: as `/api/threads/{id}/stop`.

    Args:
        slug (str):
        thread_id (UUID):
        body (None | StopBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | VisitorStopped]
    """

    kwargs = _get_kwargs(
        slug=slug,
        thread_id=thread_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    slug: str,
    thread_id: UUID,
    *,
    client: AuthenticatedClient,
    body: None | StopBody,
) -> ErrorBody | VisitorStopped | None:
    """`POST …/threads/{id}/stop`: as `/api/threads/{id}/stop`.

    Args:
        slug (str):
        thread_id (UUID):
        body (None | StopBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | VisitorStopped
    """

    return sync_detailed(
        slug=slug,
        thread_id=thread_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    slug: str,
    thread_id: UUID,
    *,
    client: AuthenticatedClient,
    body: None | StopBody,
) -> Response[ErrorBody | VisitorStopped]:
    """`POST …/threads/{id}/stop`: as `/api/threads/{id}/stop`.

    Args:
        slug (str):
        thread_id (UUID):
        body (None | StopBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | VisitorStopped]
    """

    kwargs = _get_kwargs(
        slug=slug,
        thread_id=thread_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    slug: str,
    thread_id: UUID,
    *,
    client: AuthenticatedClient,
    body: None | StopBody,
) -> ErrorBody | VisitorStopped | None:
    """`POST …/threads/{id}/stop`: as `/api/threads/{id}/stop`.

    Args:
        slug (str):
        thread_id (UUID):
        body (None | StopBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | VisitorStopped
    """

    return (
        await asyncio_detailed(
            slug=slug,
            thread_id=thread_id,
            client=client,
            body=body,
        )
    ).parsed
