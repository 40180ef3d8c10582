from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.trace_status import TraceStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.b_tree_map import BTreeMap


T = TypeVar("T", bound="Trace")


@_attrs_define
class Trace:
    """One turn's trace header.

    Attributes:
        agent_id (UUID): An agent of an organization.
        cache_read_tokens (int):
        cache_write_tokens (int):
        error_count (int):
        id (UUID): One turn's trace (`observability.md`).
        llm_call_count (int):
        metadata (BTreeMap):
        model (str):
        name (str):
        org_id (UUID): An organization: the boundary of every other resource.
        otel_trace_id (str): 32 hex digits: the caller's `traceparent` trace, else the id's bytes.
        span_count (int): Spans recorded, those past [`MAX_SPANS`] included.
        started_at (datetime.datetime):
        status (TraceStatus): How a turn ended (or that it has not).
        thread_id (UUID): A conversation thread on an agent.
        tool_call_count (int):
        total_input_tokens (int):
        total_output_tokens (int):
        user_id (str): The sender: JWT `sub`, `senderId`, or `apikey:{key id}`.
        duration_ms (float | None | Unset): From the turn's start (queue wait excluded) to its end.
        ended_at (datetime.datetime | None | Unset):
        error_code (None | str | Unset):
        estimated_cost_usd (float | None | Unset): `None` when a call's model has no price.
        parent_span_id (None | Unset | UUID):
        parent_trace_id (None | Unset | UUID): A delegated turn's: the trace and the tool span of the call that
            ran it (absent elsewhere).
        run_id (None | Unset | UUID):
        runner_id (None | Unset | UUID): The runner and run of a run's turn (`null` elsewhere).
        ttft_ms (float | None | Unset): From the turn's start to its first token.
    """

    agent_id: UUID
    cache_read_tokens: int
    cache_write_tokens: int
    error_count: int
    id: UUID
    llm_call_count: int
    metadata: BTreeMap
    model: str
    name: str
    org_id: UUID
    otel_trace_id: str
    span_count: int
    started_at: datetime.datetime
    status: TraceStatus
    thread_id: UUID
    tool_call_count: int
    total_input_tokens: int
    total_output_tokens: int
    user_id: str
    duration_ms: float | None | Unset = UNSET
    ended_at: datetime.datetime | None | Unset = UNSET
    error_code: None | str | Unset = UNSET
    estimated_cost_usd: float | None | Unset = UNSET
    parent_span_id: None | Unset | UUID = UNSET
    parent_trace_id: None | Unset | UUID = UNSET
    run_id: None | Unset | UUID = UNSET
    runner_id: None | Unset | UUID = UNSET
    ttft_ms: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = str(self.agent_id)

        cache_read_tokens = self.cache_read_tokens

        cache_write_tokens = self.cache_write_tokens

        error_count = self.error_count

        id = str(self.id)

        llm_call_count = self.llm_call_count

        metadata = self.metadata.to_dict()

        model = self.model

        name = self.name

        org_id = str(self.org_id)

        otel_trace_id = self.otel_trace_id

        span_count = self.span_count

        started_at = self.started_at.isoformat()

        status = self.status.value

        thread_id = str(self.thread_id)

        tool_call_count = self.tool_call_count

        total_input_tokens = self.total_input_tokens

        total_output_tokens = self.total_output_tokens

        user_id = self.user_id

        duration_ms: float | None | Unset
        if isinstance(self.duration_ms, Unset):
            duration_ms = UNSET
        else:
            duration_ms = self.duration_ms

        ended_at: None | str | Unset
        if isinstance(self.ended_at, Unset):
            ended_at = UNSET
        elif isinstance(self.ended_at, datetime.datetime):
            ended_at = self.ended_at.isoformat()
        else:
            ended_at = self.ended_at

        error_code: None | str | Unset
        if isinstance(self.error_code, Unset):
            error_code = UNSET
        else:
            error_code = self.error_code

        estimated_cost_usd: float | None | Unset
        if isinstance(self.estimated_cost_usd, Unset):
            estimated_cost_usd = UNSET
        else:
            estimated_cost_usd = self.estimated_cost_usd

        parent_span_id: None | str | Unset
        if isinstance(self.parent_span_id, Unset):
            parent_span_id = UNSET
        elif isinstance(self.parent_span_id, UUID):
            parent_span_id = str(self.parent_span_id)
        else:
            parent_span_id = self.parent_span_id

        parent_trace_id: None | str | Unset
        if isinstance(self.parent_trace_id, Unset):
            parent_trace_id = UNSET
        elif isinstance(self.parent_trace_id, UUID):
            parent_trace_id = str(self.parent_trace_id)
        else:
            parent_trace_id = self.parent_trace_id

        run_id: None | str | Unset
        if isinstance(self.run_id, Unset):
            run_id = UNSET
        elif isinstance(self.run_id, UUID):
            run_id = str(self.run_id)
        else:
            run_id = self.run_id

        runner_id: None | str | Unset
        if isinstance(self.runner_id, Unset):
            runner_id = UNSET
        elif isinstance(self.runner_id, UUID):
            runner_id = str(self.runner_id)
        else:
            runner_id = self.runner_id

        ttft_ms: float | None | Unset
        if isinstance(self.ttft_ms, Unset):
            ttft_ms = UNSET
        else:
            ttft_ms = self.ttft_ms

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "cache_read_tokens": cache_read_tokens,
                "cache_write_tokens": cache_write_tokens,
                "error_count": error_count,
                "id": id,
                "llm_call_count": llm_call_count,
                "metadata": metadata,
                "model": model,
                "name": name,
                "org_id": org_id,
                "otel_trace_id": otel_trace_id,
                "span_count": span_count,
                "started_at": started_at,
                "status": status,
                "thread_id": thread_id,
                "tool_call_count": tool_call_count,
                "total_input_tokens": total_input_tokens,
                "total_output_tokens": total_output_tokens,
                "user_id": user_id,
            }
        )
        if duration_ms is not UNSET:
            field_dict["duration_ms"] = duration_ms
        if ended_at is not UNSET:
            field_dict["ended_at"] = ended_at
        if error_code is not UNSET:
            field_dict["error_code"] = error_code
        if estimated_cost_usd is not UNSET:
            field_dict["estimated_cost_usd"] = estimated_cost_usd
        if parent_span_id is not UNSET:
            field_dict["parent_span_id"] = parent_span_id
        if parent_trace_id is not UNSET:
            field_dict["parent_trace_id"] = parent_trace_id
        if run_id is not UNSET:
            field_dict["run_id"] = run_id
        if runner_id is not UNSET:
            field_dict["runner_id"] = runner_id
        if ttft_ms is not UNSET:
            field_dict["ttft_ms"] = ttft_ms

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.b_tree_map import BTreeMap

        d = dict(src_dict)
        agent_id = UUID(d.pop("agent_id"))

        cache_read_tokens = d.pop("cache_read_tokens")

        cache_write_tokens = d.pop("cache_write_tokens")

        error_count = d.pop("error_count")

        id = UUID(d.pop("id"))

        llm_call_count = d.pop("llm_call_count")

        metadata = BTreeMap.from_dict(d.pop("metadata"))

        model = d.pop("model")

        name = d.pop("name")

        org_id = UUID(d.pop("org_id"))

        otel_trace_id = d.pop("otel_trace_id")

        span_count = d.pop("span_count")

        started_at = datetime.datetime.fromisoformat(d.pop("started_at"))

        status = TraceStatus(d.pop("status"))

        thread_id = UUID(d.pop("thread_id"))

        tool_call_count = d.pop("tool_call_count")

        total_input_tokens = d.pop("total_input_tokens")

        total_output_tokens = d.pop("total_output_tokens")

        user_id = d.pop("user_id")

        def _parse_duration_ms(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        duration_ms = _parse_duration_ms(d.pop("duration_ms", UNSET))

        def _parse_ended_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                ended_at_type_0 = datetime.datetime.fromisoformat(data)

                return ended_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        ended_at = _parse_ended_at(d.pop("ended_at", UNSET))

        def _parse_error_code(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error_code = _parse_error_code(d.pop("error_code", UNSET))

        def _parse_estimated_cost_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        estimated_cost_usd = _parse_estimated_cost_usd(d.pop("estimated_cost_usd", UNSET))

        def _parse_parent_span_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                parent_span_id_type_0 = UUID(data)

                return parent_span_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        parent_span_id = _parse_parent_span_id(d.pop("parent_span_id", UNSET))

        def _parse_parent_trace_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                parent_trace_id_type_0 = UUID(data)

                return parent_trace_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        parent_trace_id = _parse_parent_trace_id(d.pop("parent_trace_id", UNSET))

        def _parse_run_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                run_id_type_0 = UUID(data)

                return run_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        run_id = _parse_run_id(d.pop("run_id", UNSET))

        def _parse_runner_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                runner_id_type_0 = UUID(data)

                return runner_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        runner_id = _parse_runner_id(d.pop("runner_id", UNSET))

        def _parse_ttft_ms(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        ttft_ms = _parse_ttft_ms(d.pop("ttft_ms", UNSET))

        trace = cls(
            agent_id=agent_id,
            cache_read_tokens=cache_read_tokens,
            cache_write_tokens=cache_write_tokens,
            error_count=error_count,
            id=id,
            llm_call_count=llm_call_count,
            metadata=metadata,
            model=model,
            name=name,
            org_id=org_id,
            otel_trace_id=otel_trace_id,
            span_count=span_count,
            started_at=started_at,
            status=status,
            thread_id=thread_id,
            tool_call_count=tool_call_count,
            total_input_tokens=total_input_tokens,
            total_output_tokens=total_output_tokens,
            user_id=user_id,
            duration_ms=duration_ms,
            ended_at=ended_at,
            error_code=error_code,
            estimated_cost_usd=estimated_cost_usd,
            parent_span_id=parent_span_id,
            parent_trace_id=parent_trace_id,
            run_id=run_id,
            runner_id=runner_id,
            ttft_ms=ttft_ms,
        )

        trace.additional_properties = d
        return trace

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
