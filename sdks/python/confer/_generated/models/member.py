from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.project_role import ProjectRole

T = TypeVar("T", bound="Member")


@_attrs_define
class Member:
    """A member of a project.

    Attributes:
        added_at (str):
        added_by (str): Who added it (or last changed its role).
        role (ProjectRole): What a member may do, weakest first (the order is the comparison).
        user_id (str):
    """

    added_at: str
    added_by: str
    role: ProjectRole
    user_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        added_at = self.added_at

        added_by = self.added_by

        role = self.role.value

        user_id = self.user_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "added_at": added_at,
                "added_by": added_by,
                "role": role,
                "user_id": user_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        added_at = d.pop("added_at")

        added_by = d.pop("added_by")

        role = ProjectRole(d.pop("role"))

        user_id = d.pop("user_id")

        member = cls(
            added_at=added_at,
            added_by=added_by,
            role=role,
            user_id=user_id,
        )

        member.additional_properties = d
        return member

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
