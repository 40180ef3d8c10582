from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.todo_status import TodoStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.todo_input import TodoInput


T = TypeVar("T", bound="AddTodos")


@_attrs_define
class AddTodos:
    """`POST /api/plans/{id}/todos` body: one todo's fields, or `{todos:
    [...]}`. (Spelled out rather than flattened, so that a misspelled field
    is still caught by the body rules.)

        Attributes:
            content (None | str | Unset):
            depends_on (list[UUID] | Unset):
            parent_id (None | Unset | UUID):
            position (int | None | Unset):
            status (None | TodoStatus | Unset):
            todos (list[TodoInput] | None | Unset):
    """

    content: None | str | Unset = UNSET
    depends_on: list[UUID] | Unset = UNSET
    parent_id: None | Unset | UUID = UNSET
    position: int | None | Unset = UNSET
    status: None | TodoStatus | Unset = UNSET
    todos: list[TodoInput] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content: None | str | Unset
        if isinstance(self.content, Unset):
            content = UNSET
        else:
            content = self.content

        depends_on: list[str] | Unset = UNSET
        if not isinstance(self.depends_on, Unset):
            depends_on = []
            for depends_on_item_data in self.depends_on:
                depends_on_item = str(depends_on_item_data)
                depends_on.append(depends_on_item)

        parent_id: None | str | Unset
        if isinstance(self.parent_id, Unset):
            parent_id = UNSET
        elif isinstance(self.parent_id, UUID):
            parent_id = str(self.parent_id)
        else:
            parent_id = self.parent_id

        position: int | None | Unset
        if isinstance(self.position, Unset):
            position = UNSET
        else:
            position = self.position

        status: None | str | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        elif isinstance(self.status, TodoStatus):
            status = self.status.value
        else:
            status = self.status

        todos: list[dict[str, Any]] | None | Unset
        if isinstance(self.todos, Unset):
            todos = UNSET
        elif isinstance(self.todos, list):
            todos = []
            for todos_type_0_item_data in self.todos:
                todos_type_0_item = todos_type_0_item_data.to_dict()
                todos.append(todos_type_0_item)

        else:
            todos = self.todos

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if content is not UNSET:
            field_dict["content"] = content
        if depends_on is not UNSET:
            field_dict["dependsOn"] = depends_on
        if parent_id is not UNSET:
            field_dict["parentId"] = parent_id
        if position is not UNSET:
            field_dict["position"] = position
        if status is not UNSET:
            field_dict["status"] = status
        if todos is not UNSET:
            field_dict["todos"] = todos

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.todo_input import TodoInput

        d = dict(src_dict)

        def _parse_content(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        content = _parse_content(d.pop("content", UNSET))

        _depends_on = d.pop("dependsOn", UNSET)
        depends_on: list[UUID] | Unset = UNSET
        if _depends_on is not UNSET:
            depends_on = []
            for depends_on_item_data in _depends_on:
                depends_on_item = UUID(depends_on_item_data)

                depends_on.append(depends_on_item)

        def _parse_parent_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                parent_id_type_0 = UUID(data)

                return parent_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        parent_id = _parse_parent_id(d.pop("parentId", UNSET))

        def _parse_position(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        position = _parse_position(d.pop("position", UNSET))

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

        def _parse_todos(data: object) -> list[TodoInput] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                todos_type_0 = []
                _todos_type_0 = data
                for todos_type_0_item_data in _todos_type_0:
                    todos_type_0_item = TodoInput.from_dict(todos_type_0_item_data)

                    todos_type_0.append(todos_type_0_item)

                return todos_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[TodoInput] | None | Unset, data)

        todos = _parse_todos(d.pop("todos", UNSET))

        add_todos = cls(
            content=content,
            depends_on=depends_on,
            parent_id=parent_id,
            position=position,
            status=status,
            todos=todos,
        )

        add_todos.additional_properties = d
        return add_todos

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
