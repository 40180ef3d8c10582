from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

T = TypeVar("T", bound="DelegationView")


@_attrs_define
class DelegationView:
    """A delegated thread's place under its parent (`agent-extras.md` §3).

    Attributes:
        depth (int):
        parent_thread_id (str):
        parent_tool_call_id (str):
        root_thread_id (str):
    """

    depth: int
    parent_thread_id: str
    parent_tool_call_id: str
    root_thread_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        depth = self.depth

        parent_thread_id = self.parent_thread_id

        parent_tool_call_id = self.parent_tool_call_id

        root_thread_id = self.root_thread_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "depth": depth,
                "parent_thread_id": parent_thread_id,
                "parent_tool_call_id": parent_tool_call_id,
                "root_thread_id": root_thread_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        depth = d.pop("depth")

        parent_thread_id = d.pop("parent_thread_id")

        parent_tool_call_id = d.pop("parent_tool_call_id")

        root_thread_id = d.pop("root_thread_id")

        delegation_view = cls(
            depth=depth,
            parent_thread_id=parent_thread_id,
            parent_tool_call_id=parent_tool_call_id,
            root_thread_id=root_thread_id,
        )

        delegation_view.additional_properties = d
        return delegation_view

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
