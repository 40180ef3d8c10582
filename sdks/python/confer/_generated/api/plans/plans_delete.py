from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.ok import Ok
from ...models.stale_body import StaleBody
from ...types import UNSET, Response, Unset


def _get_kwargs(
    plan_id: UUID,
    *,
    if_match: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/api/plans/{plan_id}".format(
            plan_id=quote(str(plan_id), safe=""),
        ),
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | Ok | StaleBody | None:
    if response.status_code == 200:
        response_200 = Ok.from_dict(response.json())

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

    if response.status_code == 412:
        response_412 = StaleBody.from_dict(response.json())

        return response_412

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
) -> Response[ErrorBody | Ok | StaleBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    plan_id: UUID,
    *,
    client: AuthenticatedClient,
    if_match: None | str | Unset = UNSET,
) -> Response[ErrorBody | Ok | StaleBody]:
    """`DELETE /api/plans/{id}`: the plan, its todos and their edges.

    Args:
        plan_id (UUID):
        if_match (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Ok | StaleBody]
    """

    kwargs = _get_kwargs(
        plan_id=plan_id,
        if_match=if_match,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    plan_id: UUID,
    *,
    client: AuthenticatedClient,
    if_match: None | str | Unset = UNSET,
) -> ErrorBody | Ok | StaleBody | None:
    """`DELETE /api/plans/{id}`: the plan, its todos and their edges.

    Args:
        plan_id (UUID):
        if_match (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Ok | StaleBody
    """

    return sync_detailed(
        plan_id=plan_id,
        client=client,
        if_match=if_match,
    ).parsed


async def asyncio_detailed(
    plan_id: UUID,
    *,
    client: AuthenticatedClient,
    if_match: None | str | Unset = UNSET,
) -> Response[ErrorBody | Ok | StaleBody]:
    """`DELETE /api/plans/{id}`: the plan, its todos and their edges.

    Args:
        plan_id (UUID):
        if_match (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Ok | StaleBody]
    """

    kwargs = _get_kwargs(
        plan_id=plan_id,
        if_match=if_match,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    plan_id: UUID,
    *,
    client: AuthenticatedClient,
    if_match: None | str | Unset = UNSET,
) -> ErrorBody | Ok | StaleBody | None:
    """`DELETE /api/plans/{id}`: the plan, its todos and their edges.

    Args:
        plan_id (UUID):
        if_match (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Ok | StaleBody
    """

    return (
        await asyncio_detailed(
            plan_id=plan_id,
            client=client,
            if_match=if_match,
        )
    ).parsed
