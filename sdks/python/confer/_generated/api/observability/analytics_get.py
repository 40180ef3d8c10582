from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.analytics import Analytics
from ...models.error_body import ErrorBody
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    period: str | Unset = UNSET,
    agent_id: UUID | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["period"] = period

    json_agent_id: str | Unset = UNSET
    if not isinstance(agent_id, Unset):
        json_agent_id = str(agent_id)
    params["agentId"] = json_agent_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/analytics",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Analytics | ErrorBody | None:
    if response.status_code == 200:
        response_200 = Analytics.from_dict(response.json())

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
) -> Response[Analytics | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    period: str | Unset = UNSET,
    agent_id: UUID | Unset = UNSET,
) -> Response[Analytics | ErrorBody]:
    """`GET /api/analytics?period=&agentId=`: totals, one entry per day, and
    the breakdowns by agent, model and tool.

    Args:
        period (str | Unset):
        agent_id (UUID | Unset): An agent of an organization.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Analytics | ErrorBody]
    """

    kwargs = _get_kwargs(
        period=period,
        agent_id=agent_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    period: str | Unset = UNSET,
    agent_id: UUID | Unset = UNSET,
) -> Analytics | ErrorBody | None:
    """`GET /api/analytics?period=&agentId=`: totals, one entry per day, and
    the breakdowns by agent, model and tool.

    Args:
        period (str | Unset):
        agent_id (UUID | Unset): An agent of an organization.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Analytics | ErrorBody
    """

    return sync_detailed(
        client=client,
        period=period,
        agent_id=agent_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    period: str | Unset = UNSET,
    agent_id: UUID | Unset = UNSET,
) -> Response[Analytics | ErrorBody]:
    """`GET /api/analytics?period=&agentId=`: totals, one entry per day, and
    the breakdowns by agent, model and tool.

    Args:
        period (str | Unset):
        agent_id (UUID | Unset): An agent of an organization.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Analytics | ErrorBody]
    """

    kwargs = _get_kwargs(
        period=period,
        agent_id=agent_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    period: str | Unset = UNSET,
    agent_id: UUID | Unset = UNSET,
) -> Analytics | ErrorBody | None:
    """`GET /api/analytics?period=&agentId=`: totals, one entry per day, and
    the breakdowns by agent, model and tool.

    Args:
        period (str | Unset):
        agent_id (UUID | Unset): An agent of an organization.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Analytics | ErrorBody
    """

    return (
        await asyncio_detailed(
            client=client,
            period=period,
            agent_id=agent_id,
        )
    ).parsed
