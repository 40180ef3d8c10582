from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

if TYPE_CHECKING:
    from ..models.todo import Todo


T = TypeVar("T", bound="TodoList")


@_attrs_define
class TodoList:
    """A list of todos (ready ones, or those a POST added).

    Attributes:
        todos (list[Todo]):
    """

    todos: list[Todo]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        todos = []
        for todos_item_data in self.todos:
            todos_item = todos_item_data.to_dict()
            todos.append(todos_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "todos": todos,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.todo import Todo

        d = dict(src_dict)
        todos = []
        _todos = d.pop("todos")
        for todos_item_data in _todos:
            todos_item = Todo.from_dict(todos_item_data)

            todos.append(todos_item)

        todo_list = cls(
            todos=todos,
        )

        todo_list.additional_properties = d
        return todo_list

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
