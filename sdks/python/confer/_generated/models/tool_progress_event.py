from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

if TYPE_CHECKING:
    from ..models.tool_progress_event_data import ToolProgressEventData


T = TypeVar("T", bound="ToolProgressEvent")


@_attrs_define
class ToolProgressEvent:
    """A child's frame as its parent streams it between the delegate call's
    `tool_executing` and `tool_result`.

        Attributes:
            child_thread_id (UUID): A conversation thread on an agent.
            data (ToolProgressEventData): The child's event data.
            depth (int): The child's depth (1 for the root's child).
            event (str): The child's event name.
            tool_call_id (str):
            tool_name (str):
    """

    child_thread_id: UUID
    data: ToolProgressEventData
    depth: int
    event: str
    tool_call_id: str
    tool_name: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        child_thread_id = str(self.child_thread_id)

        data = self.data.to_dict()

        depth = self.depth

        event = self.event

        tool_call_id = self.tool_call_id

        tool_name = self.tool_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "childThreadId": child_thread_id,
                "data": data,
                "depth": depth,
                "event": event,
                "tool_call_id": tool_call_id,
                "tool_name": tool_name,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.tool_progress_event_data import ToolProgressEventData

        d = dict(src_dict)
        child_thread_id = UUID(d.pop("childThreadId"))

        data = ToolProgressEventData.from_dict(d.pop("data"))

        depth = d.pop("depth")

        event = d.pop("event")

        tool_call_id = d.pop("tool_call_id")

        tool_name = d.pop("tool_name")

        tool_progress_event = cls(
            child_thread_id=child_thread_id,
            data=data,
            depth=depth,
            event=event,
            tool_call_id=tool_call_id,
            tool_name=tool_name,
        )

        tool_progress_event.additional_properties = d
        return tool_progress_event

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
