from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.task_action_type_1_kind import TaskActionType1Kind

T = TypeVar("T", bound="TaskActionType1")


@_attrs_define
class TaskActionType1:
    """Starts a run of one of the agent's runners with `input`.

    Attributes:
        input_ (Any):
        kind (TaskActionType1Kind):
        runner_id (UUID):
    """

    input_: Any
    kind: TaskActionType1Kind
    runner_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        input_ = self.input_

        kind = self.kind.value

        runner_id = str(self.runner_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "input": input_,
                "kind": kind,
                "runner_id": runner_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        input_ = d.pop("input")

        kind = TaskActionType1Kind(d.pop("kind"))

        runner_id = UUID(d.pop("runner_id"))

        task_action_type_1 = cls(
            input_=input_,
            kind=kind,
            runner_id=runner_id,
        )

        task_action_type_1.additional_properties = d
        return task_action_type_1

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
