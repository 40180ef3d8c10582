from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_session import CreateSession
from ...models.error_body import ErrorBody
from ...models.session_view import SessionView
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: CreateSession,
    idempotency_key: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/code-sessions",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | SessionView | None:
    if response.status_code == 201:
        response_201 = SessionView.from_dict(response.json())

        return response_201

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

    if response.status_code == 503:
        response_503 = ErrorBody.from_dict(response.json())

        return response_503

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
    *,
    client: AuthenticatedClient,
    body: CreateSession,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[ErrorBody | SessionView]:
    """`POST /api/code-sessions`: 201 `preparing`; the repository is fetched
    and set up in the background. An `Idempotency-Key` (scope: the
    caller) makes a repeat answer the first session, with
    `Idempotent-Replayed: true`; the key with another body is 422.

    Args:
        idempotency_key (None | str | Unset):
        body (CreateSession): `POST /api/code-sessions` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | SessionView]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: CreateSession,
    idempotency_key: None | str | Unset = UNSET,
) -> ErrorBody | SessionView | None:
    """`POST /api/code-sessions`: 201 `preparing`; the repository is fetched
    and set up in the background. An `Idempotency-Key` (scope: the
    caller) makes a repeat answer the first session, with
    `Idempotent-Replayed: true`; the key with another body is 422.

    Args:
        idempotency_key (None | str | Unset):
        body (CreateSession): `POST /api/code-sessions` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | SessionView
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateSession,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[ErrorBody | SessionView]:
    """`POST /api/code-sessions`: 201 `preparing`; the repository is fetched
    and set up in the background. An `Idempotency-Key` (scope: the
    caller) makes a repeat answer the first session, with
    `Idempotent-Replayed: true`; the key with another body is 422.

    Args:
        idempotency_key (None | str | Unset):
        body (CreateSession): `POST /api/code-sessions` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | SessionView]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: CreateSession,
    idempotency_key: None | str | Unset = UNSET,
) -> ErrorBody | SessionView | None:
    """`POST /api/code-sessions`: 201 `preparing`; the repository is fetched
    and set up in the background. An `Idempotency-Key` (scope: the
    caller) makes a repeat answer the first session, with
    `Idempotent-Replayed: true`; the key with another body is 422.

    Args:
        idempotency_key (None | str | Unset):
        body (CreateSession): `POST /api/code-sessions` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | SessionView
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
