from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.plan_status import PlanStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.create_plan_todo import CreatePlanTodo


T = TypeVar("T", bound="CreatePlan")


@_attrs_define
class CreatePlan:
    """`POST /api/plans` body.

    Attributes:
        thread_id (UUID):
        title (str):
        description (None | str | Unset):
        status (None | PlanStatus | Unset):
        todos (list[CreatePlanTodo] | Unset):
    """

    thread_id: UUID
    title: str
    description: None | str | Unset = UNSET
    status: None | PlanStatus | Unset = UNSET
    todos: list[CreatePlanTodo] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        thread_id = str(self.thread_id)

        title = self.title

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        status: None | str | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        elif isinstance(self.status, PlanStatus):
            status = self.status.value
        else:
            status = self.status

        todos: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.todos, Unset):
            todos = []
            for todos_item_data in self.todos:
                todos_item = todos_item_data.to_dict()
                todos.append(todos_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "threadId": thread_id,
                "title": title,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if status is not UNSET:
            field_dict["status"] = status
        if todos is not UNSET:
            field_dict["todos"] = todos

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.create_plan_todo import CreatePlanTodo

        d = dict(src_dict)
        thread_id = UUID(d.pop("threadId"))

        title = d.pop("title")

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_status(data: object) -> None | PlanStatus | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                status_type_0 = PlanStatus(data)

                return status_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PlanStatus | Unset, data)

        status = _parse_status(d.pop("status", UNSET))

        _todos = d.pop("todos", UNSET)
        todos: list[CreatePlanTodo] | Unset = UNSET
        if _todos is not UNSET:
            todos = []
            for todos_item_data in _todos:
                todos_item = CreatePlanTodo.from_dict(todos_item_data)

                todos.append(todos_item)

        create_plan = cls(
            thread_id=thread_id,
            title=title,
            description=description,
            status=status,
            todos=todos,
        )

        create_plan.additional_properties = d
        return create_plan

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
