from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.participant_role import ParticipantRole
from ..models.thread_kind import ThreadKind
from ..types import UNSET, Unset

T = TypeVar("T", bound="VisitorThread")


@_attrs_define
class VisitorThread:
    """A thread as its visitor sees it.

    Attributes:
        created_at (str):
        id (str):
        kind (ThreadKind): `single` (one user) or `multiplayer` (several participants).
        updated_at (str):
        role (None | ParticipantRole | Unset):
        title (None | str | Unset):
    """

    created_at: str
    id: str
    kind: ThreadKind
    updated_at: str
    role: None | ParticipantRole | Unset = UNSET
    title: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at

        id = self.id

        kind = self.kind.value

        updated_at = self.updated_at

        role: None | str | Unset
        if isinstance(self.role, Unset):
            role = UNSET
        elif isinstance(self.role, ParticipantRole):
            role = self.role.value
        else:
            role = self.role

        title: None | str | Unset
        if isinstance(self.title, Unset):
            title = UNSET
        else:
            title = self.title

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "id": id,
                "kind": kind,
                "updated_at": updated_at,
            }
        )
        if role is not UNSET:
            field_dict["role"] = role
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = d.pop("created_at")

        id = d.pop("id")

        kind = ThreadKind(d.pop("kind"))

        updated_at = d.pop("updated_at")

        def _parse_role(data: object) -> None | ParticipantRole | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                role_type_0 = ParticipantRole(data)

                return role_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ParticipantRole | Unset, data)

        role = _parse_role(d.pop("role", UNSET))

        def _parse_title(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        title = _parse_title(d.pop("title", UNSET))

        visitor_thread = cls(
            created_at=created_at,
            id=id,
            kind=kind,
            updated_at=updated_at,
            role=role,
            title=title,
        )

        visitor_thread.additional_properties = d
        return visitor_thread

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
