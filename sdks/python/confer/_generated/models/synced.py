from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.sync_outcome import SyncOutcome

if TYPE_CHECKING:
    from ..models.skill_view import SkillView


T = TypeVar("T", bound="Synced")


@_attrs_define
class Synced:
    """A sync's answer.

    Attributes:
        outcome (SyncOutcome): What a sync did.
        skill (SkillView): A skill as answered (its token never; `has_token` says whether it has
            one).
    """

    outcome: SyncOutcome
    skill: SkillView
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        outcome = self.outcome.value

        skill = self.skill.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "outcome": outcome,
                "skill": skill,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.skill_view import SkillView

        d = dict(src_dict)
        outcome = SyncOutcome(d.pop("outcome"))

        skill = SkillView.from_dict(d.pop("skill"))

        synced = cls(
            outcome=outcome,
            skill=skill,
        )

        synced.additional_properties = d
        return synced

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
