from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.span_kind import SpanKind
from ..models.span_status import SpanStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.span_attributes import SpanAttributes


T = TypeVar("T", bound="Span")


@_attrs_define
class Span:
    """One timed step of a turn.

    Attributes:
        attributes (SpanAttributes): A span's attributes (those of its kind; absent ones are left out).
        duration_ms (float): Milliseconds, to the microsecond.
        ended_at (datetime.datetime):
        id (UUID): A span of a trace.
        kind (SpanKind): What a span measured.
        name (str):
        started_at (datetime.datetime):
        status (SpanStatus): How a span ended.
        trace_id (UUID): One turn's trace (`observability.md`).
        error (None | str | Unset):
        input_ (None | str | Unset): What the step was given, with `CONFER_TRACE_PAYLOADS` (cut to
            [`MAX_PAYLOAD`] bytes).
        output (None | str | Unset): What it gave back, likewise.
        parent_span_id (None | Unset | UUID):
    """

    attributes: SpanAttributes
    duration_ms: float
    ended_at: datetime.datetime
    id: UUID
    kind: SpanKind
    name: str
    started_at: datetime.datetime
    status: SpanStatus
    trace_id: UUID
    error: None | str | Unset = UNSET
    input_: None | str | Unset = UNSET
    output: None | str | Unset = UNSET
    parent_span_id: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attributes = self.attributes.to_dict()

        duration_ms = self.duration_ms

        ended_at = self.ended_at.isoformat()

        id = str(self.id)

        kind = self.kind.value

        name = self.name

        started_at = self.started_at.isoformat()

        status = self.status.value

        trace_id = str(self.trace_id)

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        input_: None | str | Unset
        if isinstance(self.input_, Unset):
            input_ = UNSET
        else:
            input_ = self.input_

        output: None | str | Unset
        if isinstance(self.output, Unset):
            output = UNSET
        else:
            output = self.output

        parent_span_id: None | str | Unset
        if isinstance(self.parent_span_id, Unset):
            parent_span_id = UNSET
        elif isinstance(self.parent_span_id, UUID):
            parent_span_id = str(self.parent_span_id)
        else:
            parent_span_id = self.parent_span_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attributes": attributes,
                "duration_ms": duration_ms,
                "ended_at": ended_at,
                "id": id,
                "kind": kind,
                "name": name,
                "started_at": started_at,
                "status": status,
                "trace_id": trace_id,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error
        if input_ is not UNSET:
            field_dict["input"] = input_
        if output is not UNSET:
            field_dict["output"] = output
        if parent_span_id is not UNSET:
            field_dict["parent_span_id"] = parent_span_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.span_attributes import SpanAttributes

        d = dict(src_dict)
        attributes = SpanAttributes.from_dict(d.pop("attributes"))

        duration_ms = d.pop("duration_ms")

        ended_at = datetime.datetime.fromisoformat(d.pop("ended_at"))

        id = UUID(d.pop("id"))

        kind = SpanKind(d.pop("kind"))

        name = d.pop("name")

        started_at = datetime.datetime.fromisoformat(d.pop("started_at"))

        status = SpanStatus(d.pop("status"))

        trace_id = UUID(d.pop("trace_id"))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_input_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        input_ = _parse_input_(d.pop("input", UNSET))

        def _parse_output(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        output = _parse_output(d.pop("output", UNSET))

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

        span = cls(
            attributes=attributes,
            duration_ms=duration_ms,
            ended_at=ended_at,
            id=id,
            kind=kind,
            name=name,
            started_at=started_at,
            status=status,
            trace_id=trace_id,
            error=error,
            input_=input_,
            output=output,
            parent_span_id=parent_span_id,
        )

        span.additional_properties = d
        return span

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
