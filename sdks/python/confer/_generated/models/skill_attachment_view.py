from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.sync_status import SyncStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="SkillAttachmentView")


@_attrs_define
class SkillAttachmentView:
    """An attachment as answered.

    Attributes:
        attached_at (datetime.datetime):
        description (str):
        enabled (bool):
        name (str):
        skill_id (UUID): A skill of an org's library (`agent-extras.md` §1).
        sync_status (None | SyncStatus | Unset):
    """

    attached_at: datetime.datetime
    description: str
    enabled: bool
    name: str
    skill_id: UUID
    sync_status: None | SyncStatus | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attached_at = self.attached_at.isoformat()

        description = self.description

        enabled = self.enabled

        name = self.name

        skill_id = str(self.skill_id)

        sync_status: None | str | Unset
        if isinstance(self.sync_status, Unset):
            sync_status = UNSET
        elif isinstance(self.sync_status, SyncStatus):
            sync_status = self.sync_status.value
        else:
            sync_status = self.sync_status

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attached_at": attached_at,
                "description": description,
                "enabled": enabled,
                "name": name,
                "skill_id": skill_id,
            }
        )
        if sync_status is not UNSET:
            field_dict["sync_status"] = sync_status

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        attached_at = datetime.datetime.fromisoformat(d.pop("attached_at"))

        description = d.pop("description")

        enabled = d.pop("enabled")

        name = d.pop("name")

        skill_id = UUID(d.pop("skill_id"))

        def _parse_sync_status(data: object) -> None | SyncStatus | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                sync_status_type_0 = SyncStatus(data)

                return sync_status_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SyncStatus | Unset, data)

        sync_status = _parse_sync_status(d.pop("sync_status", UNSET))

        skill_attachment_view = cls(
            attached_at=attached_at,
            description=description,
            enabled=enabled,
            name=name,
            skill_id=skill_id,
            sync_status=sync_status,
        )

        skill_attachment_view.additional_properties = d
        return skill_attachment_view

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
