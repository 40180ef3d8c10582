from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.todo_status import TodoStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="Todo")


@_attrs_define
class Todo:
    """A todo of a plan.

    Attributes:
        content (str):
        created_at (datetime.datetime):
        depends_on (list[UUID]): Todos of the same plan this one waits for.
        id (UUID): A todo of a plan.
        plan_id (UUID): A plan of a thread (`plans.md`).
        position (int): Order among its siblings, from 0.
        status (TodoStatus): Where a todo stands; `in-progress` is accepted on input.
        updated_at (datetime.datetime):
        version (int):
        parent_id (None | Unset | UUID):
    """

    content: str
    created_at: datetime.datetime
    depends_on: list[UUID]
    id: UUID
    plan_id: UUID
    position: int
    status: TodoStatus
    updated_at: datetime.datetime
    version: int
    parent_id: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content = self.content

        created_at = self.created_at.isoformat()

        depends_on = []
        for depends_on_item_data in self.depends_on:
            depends_on_item = str(depends_on_item_data)
            depends_on.append(depends_on_item)

        id = str(self.id)

        plan_id = str(self.plan_id)

        position = self.position

        status = self.status.value

        updated_at = self.updated_at.isoformat()

        version = self.version

        parent_id: None | str | Unset
        if isinstance(self.parent_id, Unset):
            parent_id = UNSET
        elif isinstance(self.parent_id, UUID):
            parent_id = str(self.parent_id)
        else:
            parent_id = self.parent_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content": content,
                "created_at": created_at,
                "depends_on": depends_on,
                "id": id,
                "plan_id": plan_id,
                "position": position,
                "status": status,
                "updated_at": updated_at,
                "version": version,
            }
        )
        if parent_id is not UNSET:
            field_dict["parent_id"] = parent_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        content = d.pop("content")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        depends_on = []
        _depends_on = d.pop("depends_on")
        for depends_on_item_data in _depends_on:
            depends_on_item = UUID(depends_on_item_data)

            depends_on.append(depends_on_item)

        id = UUID(d.pop("id"))

        plan_id = UUID(d.pop("plan_id"))

        position = d.pop("position")

        status = TodoStatus(d.pop("status"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        version = d.pop("version")

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

        parent_id = _parse_parent_id(d.pop("parent_id", UNSET))

        todo = cls(
            content=content,
            created_at=created_at,
            depends_on=depends_on,
            id=id,
            plan_id=plan_id,
            position=position,
            status=status,
            updated_at=updated_at,
            version=version,
            parent_id=parent_id,
        )

        todo.additional_properties = d
        return todo

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
