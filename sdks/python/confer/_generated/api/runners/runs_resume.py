from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.resume_run import ResumeRun
from ...models.run import Run
from ...types import UNSET, Response, Unset


def _get_kwargs(
    runner_id: UUID,
    run_id: UUID,
    *,
    body: ResumeRun,
    idempotency_key: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/runners/{runner_id}/runs/{run_id}/resume".format(
            runner_id=quote(str(runner_id), safe=""),
            run_id=quote(str(run_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | Run | None:
    if response.status_code == 200:
        response_200 = Run.from_dict(response.json())

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
) -> Response[ErrorBody | Run]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    runner_id: UUID,
    run_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ResumeRun,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[ErrorBody | Run]:
    """`POST …/runs/{runId}/resume`: a `requires_action` run takes the results
    of exactly its pending calls and is queued again.

    Args:
        runner_id (UUID):
        run_id (UUID):
        idempotency_key (None | str | Unset):
        body (ResumeRun): `POST …/resume` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Run]
    """

    kwargs = _get_kwargs(
        runner_id=runner_id,
        run_id=run_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    runner_id: UUID,
    run_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ResumeRun,
    idempotency_key: None | str | Unset = UNSET,
) -> ErrorBody | Run | None:
    """`POST …/runs/{runId}/resume`: a `requires_action` run takes the results
    of exactly its pending calls and is queued again.

    Args:
        runner_id (UUID):
        run_id (UUID):
        idempotency_key (None | str | Unset):
        body (ResumeRun): `POST …/resume` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Run
    """

    return sync_detailed(
        runner_id=runner_id,
        run_id=run_id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    runner_id: UUID,
    run_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ResumeRun,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[ErrorBody | Run]:
    """`POST …/runs/{runId}/resume`: a `requires_action` run takes the results
    of exactly its pending calls and is queued again.

    Args:
        runner_id (UUID):
        run_id (UUID):
        idempotency_key (None | str | Unset):
        body (ResumeRun): `POST …/resume` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | Run]
    """

    kwargs = _get_kwargs(
        runner_id=runner_id,
        run_id=run_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    runner_id: UUID,
    run_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ResumeRun,
    idempotency_key: None | str | Unset = UNSET,
) -> ErrorBody | Run | None:
    """`POST …/runs/{runId}/resume`: a `requires_action` run takes the results
    of exactly its pending calls and is queued again.

    Args:
        runner_id (UUID):
        run_id (UUID):
        idempotency_key (None | str | Unset):
        body (ResumeRun): `POST …/resume` body.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | Run
    """

    return (
        await asyncio_detailed(
            runner_id=runner_id,
            run_id=run_id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
