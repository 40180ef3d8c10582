from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.trace_status import TraceStatus

T = TypeVar("T", bound="ChildTrace")


@_attrs_define
class ChildTrace:
    """A delegated turn's trace, as its parent's lists it.

    Attributes:
        agent_id (UUID):
        status (TraceStatus): How a turn ended (or that it has not).
        thread_id (UUID):
        trace_id (UUID):
    """

    agent_id: UUID
    status: TraceStatus
    thread_id: UUID
    trace_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = str(self.agent_id)

        status = self.status.value

        thread_id = str(self.thread_id)

        trace_id = str(self.trace_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "status": status,
                "thread_id": thread_id,
                "trace_id": trace_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        agent_id = UUID(d.pop("agent_id"))

        status = TraceStatus(d.pop("status"))

        thread_id = UUID(d.pop("thread_id"))

        trace_id = UUID(d.pop("trace_id"))

        child_trace = cls(
            agent_id=agent_id,
            status=status,
            thread_id=thread_id,
            trace_id=trace_id,
        )

        child_trace.additional_properties = d
        return child_trace

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
