from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.todo_status import TodoStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="CreatePlanTodo")


@_attrs_define
class CreatePlanTodo:
    """A todo of `POST /api/plans`; `dependsOn` names other todos of the same
    list by index.

        Attributes:
            content (str):
            depends_on (list[int] | Unset):
            status (None | TodoStatus | Unset):
    """

    content: str
    depends_on: list[int] | Unset = UNSET
    status: None | TodoStatus | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content = self.content

        depends_on: list[int] | Unset = UNSET
        if not isinstance(self.depends_on, Unset):
            depends_on = self.depends_on

        status: None | str | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        elif isinstance(self.status, TodoStatus):
            status = self.status.value
        else:
            status = self.status

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content": content,
            }
        )
        if depends_on is not UNSET:
            field_dict["dependsOn"] = depends_on
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        content = d.pop("content")

        depends_on = cast(list[int], d.pop("dependsOn", UNSET))

        def _parse_status(data: object) -> None | TodoStatus | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                status_type_0 = TodoStatus(data)

                return status_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TodoStatus | Unset, data)

        status = _parse_status(d.pop("status", UNSET))

        create_plan_todo = cls(
            content=content,
            depends_on=depends_on,
            status=status,
        )

        create_plan_todo.additional_properties = d
        return create_plan_todo

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
