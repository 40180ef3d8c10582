from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_visitor_thread import CreateVisitorThread
from ...models.error_body import ErrorBody
from ...models.visitor_thread import VisitorThread
from ...types import Response


def _get_kwargs(
    slug: str,
    *,
    body: CreateVisitorThread | None,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/public/chat/{slug}/threads".format(
            slug=quote(str(slug), safe=""),
        ),
    }

    if isinstance(body, CreateVisitorThread):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | VisitorThread | None:
    if response.status_code == 200:
        response_200 = VisitorThread.from_dict(response.json())

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
) -> Response[ErrorBody | VisitorThread]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    slug: str,
    *,
    client: AuthenticatedClient,
    body: CreateVisitorThread | None,
) -> Response[ErrorBody | VisitorThread]:
    """`POST /api/public/chat/{slug}/threads`: counts as a send (the visitor's
    and the IP's message quotas); at most [`MAX_THREADS_PER_VISITOR`] per
    visitor (the store counts them as it creates).

    Args:
        slug (str):
        body (CreateVisitorThread | None):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | VisitorThread]
    """

    kwargs = _get_kwargs(
        slug=slug,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    slug: str,
    *,
    client: AuthenticatedClient,
    body: CreateVisitorThread | None,
) -> ErrorBody | VisitorThread | None:
    """`POST /api/public/chat/{slug}/threads`: counts as a send (the visitor's
    and the IP's message quotas); at most [`MAX_THREADS_PER_VISITOR`] per
    visitor (the store counts them as it creates).

    Args:
        slug (str):
        body (CreateVisitorThread | None):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | VisitorThread
    """

    return sync_detailed(
        slug=slug,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    slug: str,
    *,
    client: AuthenticatedClient,
    body: CreateVisitorThread | None,
) -> Response[ErrorBody | VisitorThread]:
    """`POST /api/public/chat/{slug}/threads`: counts as a send (the visitor's
    and the IP's message quotas); at most [`MAX_THREADS_PER_VISITOR`] per
    visitor (the store counts them as it creates).

    Args:
        slug (str):
        body (CreateVisitorThread | None):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | VisitorThread]
    """

    kwargs = _get_kwargs(
        slug=slug,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    slug: str,
    *,
    client: AuthenticatedClient,
    body: CreateVisitorThread | None,
) -> ErrorBody | VisitorThread | None:
    """`POST /api/public/chat/{slug}/threads`: counts as a send (the visitor's
    and the IP's message quotas); at most [`MAX_THREADS_PER_VISITOR`] per
    visitor (the store counts them as it creates).

    Args:
        slug (str):
        body (CreateVisitorThread | None):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | VisitorThread
    """

    return (
        await asyncio_detailed(
            slug=slug,
            client=client,
            body=body,
        )
    ).parsed
