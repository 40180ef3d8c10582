from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.session_view import SessionView
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    code_agent_id: UUID | Unset = UNSET,
    status: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: UUID | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_code_agent_id: str | Unset = UNSET
    if not isinstance(code_agent_id, Unset):
        json_code_agent_id = str(code_agent_id)
    params["codeAgentId"] = json_code_agent_id

    params["status"] = status

    params["limit"] = limit

    json_cursor: str | Unset = UNSET
    if not isinstance(cursor, Unset):
        json_cursor = str(cursor)
    params["cursor"] = json_cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/code-sessions",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | list[SessionView] | None:
    if response.status_code == 200:
        response_200 = []
        _response_200 = response.json()
        for response_200_item_data in _response_200:
            response_200_item = SessionView.from_dict(response_200_item_data)

            response_200.append(response_200_item)

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
) -> Response[ErrorBody | list[SessionView]]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    code_agent_id: UUID | Unset = UNSET,
    status: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: UUID | Unset = UNSET,
) -> Response[ErrorBody | list[SessionView]]:
    """`GET /api/code-sessions`: newest first.

    Args:
        code_agent_id (UUID | Unset):
        status (str | Unset):
        limit (int | Unset):
        cursor (UUID | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | list[SessionView]]
    """

    kwargs = _get_kwargs(
        code_agent_id=code_agent_id,
        status=status,
        limit=limit,
        cursor=cursor,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    code_agent_id: UUID | Unset = UNSET,
    status: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: UUID | Unset = UNSET,
) -> ErrorBody | list[SessionView] | None:
    """`GET /api/code-sessions`: newest first.

    Args:
        code_agent_id (UUID | Unset):
        status (str | Unset):
        limit (int | Unset):
        cursor (UUID | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | list[SessionView]
    """

    return sync_detailed(
        client=client,
        code_agent_id=code_agent_id,
        status=status,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    code_agent_id: UUID | Unset = UNSET,
    status: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: UUID | Unset = UNSET,
) -> Response[ErrorBody | list[SessionView]]:
    """`GET /api/code-sessions`: newest first.

    Args:
        code_agent_id (UUID | Unset):
        status (str | Unset):
        limit (int | Unset):
        cursor (UUID | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | list[SessionView]]
    """

    kwargs = _get_kwargs(
        code_agent_id=code_agent_id,
        status=status,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    code_agent_id: UUID | Unset = UNSET,
    status: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: UUID | Unset = UNSET,
) -> ErrorBody | list[SessionView] | None:
    """`GET /api/code-sessions`: newest first.

    Args:
        code_agent_id (UUID | Unset):
        status (str | Unset):
        limit (int | Unset):
        cursor (UUID | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | list[SessionView]
    """

    return (
        await asyncio_detailed(
            client=client,
            code_agent_id=code_agent_id,
            status=status,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
