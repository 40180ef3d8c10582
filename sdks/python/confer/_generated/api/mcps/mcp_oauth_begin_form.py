from http import HTTPStatus
from typing import Any, cast

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.begin_form import BeginForm
from ...models.error_body import ErrorBody
from ...types import Response


def _get_kwargs(
    *,
    body: BeginForm,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/mcps/managed-oauth/begin",
    }

    _kwargs["data"] = body.to_dict()
    headers["Content-Type"] = "application/x-www-form-urlencoded"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | ErrorBody | None:
    if response.status_code == 302:
        response_302 = cast(Any, None)
        return response_302

    if response.status_code == 400:
        response_400 = cast(Any, None)
        return response_400

    if response.status_code == 401:
        response_401 = cast(Any, None)
        return response_401

    if response.status_code == 403:
        response_403 = cast(Any, None)
        return response_403

    if response.status_code == 413:
        response_413 = ErrorBody.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

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
    *,
    client: AuthenticatedClient | Client,
    body: BeginForm,
) -> Response[Any | ErrorBody]:
    """`POST /api/mcps/managed-oauth/begin` (form `ticket`, `token`: the JWT
    of the user the flow is for), as a browser's top-level navigation from
    the user's app: what `GET` does, without the JWT in a URL.

    Args:
        body (BeginForm): `begin`'s form (`application/x-www-form-urlencoded`): the ticket and
            the JWT of the user it is for.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: BeginForm,
) -> Any | ErrorBody | None:
    """`POST /api/mcps/managed-oauth/begin` (form `ticket`, `token`: the JWT
    of the user the flow is for), as a browser's top-level navigation from
    the user's app: what `GET` does, without the JWT in a URL.

    Args:
        body (BeginForm): `begin`'s form (`application/x-www-form-urlencoded`): the ticket and
            the JWT of the user it is for.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: BeginForm,
) -> Response[Any | ErrorBody]:
    """`POST /api/mcps/managed-oauth/begin` (form `ticket`, `token`: the JWT
    of the user the flow is for), as a browser's top-level navigation from
    the user's app: what `GET` does, without the JWT in a URL.

    Args:
        body (BeginForm): `begin`'s form (`application/x-www-form-urlencoded`): the ticket and
            the JWT of the user it is for.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: BeginForm,
) -> Any | ErrorBody | None:
    """`POST /api/mcps/managed-oauth/begin` (form `ticket`, `token`: the JWT
    of the user the flow is for), as a browser's top-level navigation from
    the user's app: what `GET` does, without the JWT in a URL.

    Args:
        body (BeginForm): `begin`'s form (`application/x-www-form-urlencoded`): the ticket and
            the JWT of the user it is for.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
