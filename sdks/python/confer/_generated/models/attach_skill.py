from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="AttachSkill")


@_attrs_define
class AttachSkill:
    """`POST …/skills` body.

    Attributes:
        skill_id (UUID): A skill of an org's library (`agent-extras.md` §1).
        enabled (bool | None | Unset): `true` for a new attachment; an existing one keeps its own.
    """

    skill_id: UUID
    enabled: bool | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        skill_id = str(self.skill_id)

        enabled: bool | None | Unset
        if isinstance(self.enabled, Unset):
            enabled = UNSET
        else:
            enabled = self.enabled

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "skillId": skill_id,
            }
        )
        if enabled is not UNSET:
            field_dict["enabled"] = enabled

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        skill_id = UUID(d.pop("skillId"))

        def _parse_enabled(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        enabled = _parse_enabled(d.pop("enabled", UNSET))

        attach_skill = cls(
            skill_id=skill_id,
            enabled=enabled,
        )

        return attach_skill
