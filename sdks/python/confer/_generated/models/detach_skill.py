from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from typing_extensions import Self

T = TypeVar("T", bound="DetachSkill")


@_attrs_define
class DetachSkill:
    """`DELETE …/skills` body.

    Attributes:
        skill_id (UUID): A skill of an org's library (`agent-extras.md` §1).
    """

    skill_id: UUID

    def to_dict(self) -> dict[str, Any]:
        skill_id = str(self.skill_id)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "skillId": skill_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        skill_id = UUID(d.pop("skillId"))

        detach_skill = cls(
            skill_id=skill_id,
        )

        return detach_skill
