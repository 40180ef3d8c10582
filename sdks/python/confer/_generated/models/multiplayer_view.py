from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.display_names import DisplayNames
from ..models.who_can_invite import WhoCanInvite
from ..types import UNSET, Unset

T = TypeVar("T", bound="MultiplayerView")


@_attrs_define
class MultiplayerView:
    """The configuration as returned.

    Attributes:
        agent_id (str):
        display_names (DisplayNames): How visitors are named in multiplayer threads.
        max_participants (int):
        org_id (str):
        who_can_invite (WhoCanInvite): Who may invite to an agent's multiplayer threads.
        updated_at (None | str | Unset):
    """

    agent_id: str
    display_names: DisplayNames
    max_participants: int
    org_id: str
    who_can_invite: WhoCanInvite
    updated_at: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        display_names = self.display_names.value

        max_participants = self.max_participants

        org_id = self.org_id

        who_can_invite = self.who_can_invite.value

        updated_at: None | str | Unset
        if isinstance(self.updated_at, Unset):
            updated_at = UNSET
        else:
            updated_at = self.updated_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "display_names": display_names,
                "max_participants": max_participants,
                "org_id": org_id,
                "who_can_invite": who_can_invite,
            }
        )
        if updated_at is not UNSET:
            field_dict["updated_at"] = updated_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        display_names = DisplayNames(d.pop("display_names"))

        max_participants = d.pop("max_participants")

        org_id = d.pop("org_id")

        who_can_invite = WhoCanInvite(d.pop("who_can_invite"))

        def _parse_updated_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        updated_at = _parse_updated_at(d.pop("updated_at", UNSET))

        multiplayer_view = cls(
            agent_id=agent_id,
            display_names=display_names,
            max_participants=max_participants,
            org_id=org_id,
            who_can_invite=who_can_invite,
            updated_at=updated_at,
        )

        multiplayer_view.additional_properties = d
        return multiplayer_view

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
