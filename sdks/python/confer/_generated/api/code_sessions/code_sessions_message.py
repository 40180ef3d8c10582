from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.session_message import SessionMessage
from ...models.session_sent import SessionSent
from ...types import UNSET, Response, Unset


def _get_kwargs(
    code_session_id: UUID,
    *,
    body: SessionMessage,
    idempotency_key: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/code-sessions/{code_session_id}/messages".format(
            code_session_id=quote(str(code_session_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | SessionSent | None:
    if response.status_code == 202:
        response_202 = SessionSent.from_dict(response.json())

        return response_202

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
) -> Response[ErrorBody | SessionSent]:
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
    body: SessionMessage,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[ErrorBody | SessionSent]:
    """`POST /api/code-sessions/{id}/messages`: 202; the turn streams on the
    session's events.

    Args:
        code_session_id (UUID):
        idempotency_key (None | str | Unset):
        body (SessionMessage): `POST /api/code-sessions/{id}/messages` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | SessionSent]
    """

    kwargs = _get_kwargs(
        code_session_id=code_session_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    code_session_id: UUID,
    *,
    client: AuthenticatedClient,
    body: SessionMessage,
    idempotency_key: None | str | Unset = UNSET,
) -> ErrorBody | SessionSent | None:
    """`POST /api/code-sessions/{id}/messages`: 202; the turn streams on the
    session's events.

    Args:
        code_session_id (UUID):
        idempotency_key (None | str | Unset):
        body (SessionMessage): `POST /api/code-sessions/{id}/messages` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | SessionSent
    """

    return sync_detailed(
        code_session_id=code_session_id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    code_session_id: UUID,
    *,
    client: AuthenticatedClient,
    body: SessionMessage,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[ErrorBody | SessionSent]:
    """`POST /api/code-sessions/{id}/messages`: 202; the turn streams on the
    session's events.

    Args:
        code_session_id (UUID):
        idempotency_key (None | str | Unset):
        body (SessionMessage): `POST /api/code-sessions/{id}/messages` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | SessionSent]
    """

    kwargs = _get_kwargs(
        code_session_id=code_session_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    code_session_id: UUID,
    *,
    client: AuthenticatedClient,
    body: SessionMessage,
    idempotency_key: None | str | Unset = UNSET,
) -> ErrorBody | SessionSent | None:
    """`POST /api/code-sessions/{id}/messages`: 202; the turn streams on the
    session's events.

    Args:
        code_session_id (UUID):
        idempotency_key (None | str | Unset):
        body (SessionMessage): `POST /api/code-sessions/{id}/messages` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | SessionSent
    """

    return (
        await asyncio_detailed(
            code_session_id=code_session_id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
