from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.participant_role import ParticipantRole
from ..types import UNSET, Unset

T = TypeVar("T", bound="ParticipantView")


@_attrs_define
class ParticipantView:
    """A participant as returned.

    Attributes:
        joined_at (str):
        role (ParticipantRole): `owner` or `member` of a multiplayer thread.
        user_id (str):
        display_name (None | str | Unset):
    """

    joined_at: str
    role: ParticipantRole
    user_id: str
    display_name: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        joined_at = self.joined_at

        role = self.role.value

        user_id = self.user_id

        display_name: None | str | Unset
        if isinstance(self.display_name, Unset):
            display_name = UNSET
        else:
            display_name = self.display_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "joined_at": joined_at,
                "role": role,
                "user_id": user_id,
            }
        )
        if display_name is not UNSET:
            field_dict["display_name"] = display_name

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        joined_at = d.pop("joined_at")

        role = ParticipantRole(d.pop("role"))

        user_id = d.pop("user_id")

        def _parse_display_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        display_name = _parse_display_name(d.pop("display_name", UNSET))

        participant_view = cls(
            joined_at=joined_at,
            role=role,
            user_id=user_id,
            display_name=display_name,
        )

        participant_view.additional_properties = d
        return participant_view

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
