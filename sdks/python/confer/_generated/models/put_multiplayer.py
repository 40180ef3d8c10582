from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="PutMultiplayer")


@_attrs_define
class PutMultiplayer:
    """`PUT` body: any subset.

    Attributes:
        display_names (None | str | Unset): `chosen` or `generated`.
        max_participants (int | None | Unset): 2 to 100.
        who_can_invite (None | str | Unset): `owner` or `participants`.
    """

    display_names: None | str | Unset = UNSET
    max_participants: int | None | Unset = UNSET
    who_can_invite: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        display_names: None | str | Unset
        if isinstance(self.display_names, Unset):
            display_names = UNSET
        else:
            display_names = self.display_names

        max_participants: int | None | Unset
        if isinstance(self.max_participants, Unset):
            max_participants = UNSET
        else:
            max_participants = self.max_participants

        who_can_invite: None | str | Unset
        if isinstance(self.who_can_invite, Unset):
            who_can_invite = UNSET
        else:
            who_can_invite = self.who_can_invite

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if display_names is not UNSET:
            field_dict["displayNames"] = display_names
        if max_participants is not UNSET:
            field_dict["maxParticipants"] = max_participants
        if who_can_invite is not UNSET:
            field_dict["whoCanInvite"] = who_can_invite

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_display_names(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        display_names = _parse_display_names(d.pop("displayNames", UNSET))

        def _parse_max_participants(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_participants = _parse_max_participants(d.pop("maxParticipants", UNSET))

        def _parse_who_can_invite(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        who_can_invite = _parse_who_can_invite(d.pop("whoCanInvite", UNSET))

        put_multiplayer = cls(
            display_names=display_names,
            max_participants=max_participants,
            who_can_invite=who_can_invite,
        )

        put_multiplayer.additional_properties = d
        return put_multiplayer

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
