from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.task_action_type_0_kind import TaskActionType0Kind

T = TypeVar("T", bound="TaskActionType0")


@_attrs_define
class TaskActionType0:
    """Sends `content` to a thread of the agent, as sender
    `schedule:{id}`.

        Attributes:
            content (str):
            kind (TaskActionType0Kind):
            thread_id (UUID):
    """

    content: str
    kind: TaskActionType0Kind
    thread_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content = self.content

        kind = self.kind.value

        thread_id = str(self.thread_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content": content,
                "kind": kind,
                "thread_id": thread_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        content = d.pop("content")

        kind = TaskActionType0Kind(d.pop("kind"))

        thread_id = UUID(d.pop("thread_id"))

        task_action_type_0 = cls(
            content=content,
            kind=kind,
            thread_id=thread_id,
        )

        task_action_type_0.additional_properties = d
        return task_action_type_0

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
