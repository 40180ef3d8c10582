from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.action_body_type_1_kind import ActionBodyType1Kind
from ..types import UNSET, Unset

T = TypeVar("T", bound="ActionBodyType1")


@_attrs_define
class ActionBodyType1:
    """
    Attributes:
        kind (ActionBodyType1Kind):
        runner_id (UUID):
        input_ (Any | Unset): `{}` by default.
    """

    kind: ActionBodyType1Kind
    runner_id: UUID
    input_: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        runner_id = str(self.runner_id)

        input_ = self.input_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kind": kind,
                "runnerId": runner_id,
            }
        )
        if input_ is not UNSET:
            field_dict["input"] = input_

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kind = ActionBodyType1Kind(d.pop("kind"))

        runner_id = UUID(d.pop("runnerId"))

        input_ = d.pop("input", UNSET)

        action_body_type_1 = cls(
            kind=kind,
            runner_id=runner_id,
            input_=input_,
        )

        action_body_type_1.additional_properties = d
        return action_body_type_1

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
