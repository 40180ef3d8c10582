from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

T = TypeVar("T", bound="DelegateView")


@_attrs_define
class DelegateView:
    """A delegate as returned.

    Attributes:
        agent_id (UUID):
        deleted (bool): The agent was deleted since: its tool is no longer offered.
        description (str): The one given, else the agent's.
        name (str):
        tool_name (str): `delegate__{slug}`.
    """

    agent_id: UUID
    deleted: bool
    description: str
    name: str
    tool_name: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = str(self.agent_id)

        deleted = self.deleted

        description = self.description

        name = self.name

        tool_name = self.tool_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "deleted": deleted,
                "description": description,
                "name": name,
                "tool_name": tool_name,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        agent_id = UUID(d.pop("agent_id"))

        deleted = d.pop("deleted")

        description = d.pop("description")

        name = d.pop("name")

        tool_name = d.pop("tool_name")

        delegate_view = cls(
            agent_id=agent_id,
            deleted=deleted,
            description=description,
            name=name,
            tool_name=tool_name,
        )

        delegate_view.additional_properties = d
        return delegate_view

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
