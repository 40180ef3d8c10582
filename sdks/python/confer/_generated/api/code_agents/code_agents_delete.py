from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.code_agent_deleted import CodeAgentDeleted
from ...models.error_body import ErrorBody
from ...types import Response


def _get_kwargs(
    code_agent_id: UUID,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/api/code-agents/{code_agent_id}".format(
            code_agent_id=quote(str(code_agent_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> CodeAgentDeleted | ErrorBody | None:
    if response.status_code == 200:
        response_200 = CodeAgentDeleted.from_dict(response.json())

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
) -> Response[CodeAgentDeleted | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    code_agent_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[CodeAgentDeleted | ErrorBody]:
    """`DELETE /api/code-agents/{id}`: the record and its archive; its
    sessions are archived (and stay readable).

    Args:
        code_agent_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CodeAgentDeleted | ErrorBody]
    """

    kwargs = _get_kwargs(
        code_agent_id=code_agent_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    code_agent_id: UUID,
    *,
    client: AuthenticatedClient,
) -> CodeAgentDeleted | ErrorBody | None:
    """`DELETE /api/code-agents/{id}`: the record and its archive; its
    sessions are archived (and stay readable).

    Args:
        code_agent_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CodeAgentDeleted | ErrorBody
    """

    return sync_detailed(
        code_agent_id=code_agent_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    code_agent_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[CodeAgentDeleted | ErrorBody]:
    """`DELETE /api/code-agents/{id}`: the record and its archive; its
    sessions are archived (and stay readable).

    Args:
        code_agent_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CodeAgentDeleted | ErrorBody]
    """

    kwargs = _get_kwargs(
        code_agent_id=code_agent_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    code_agent_id: UUID,
    *,
    client: AuthenticatedClient,
) -> CodeAgentDeleted | ErrorBody | None:
    """`DELETE /api/code-agents/{id}`: the record and its archive; its
    sessions are archived (and stay readable).

    Args:
        code_agent_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CodeAgentDeleted | ErrorBody
    """

    return (
        await asyncio_detailed(
            code_agent_id=code_agent_id,
            client=client,
        )
    ).parsed
