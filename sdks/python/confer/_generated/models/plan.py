from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.plan_status import PlanStatus

if TYPE_CHECKING:
    from ..models.todo import Todo


T = TypeVar("T", bound="Plan")


@_attrs_define
class Plan:
    """A plan of one thread, with its todos in plan order (depth-first: each
    parent, then its children, siblings by position). Stored as one record,
    so that any change to a plan or its todos is one compare-and-swap; this
    is also the shape every route answers.

        Attributes:
            created_at (datetime.datetime):
            created_by (str): `"agent"` for a tool-made plan, else the caller (JWT `sub` or
                `apikey:{key id}`).
            description (str):
            id (UUID): A plan of a thread (`plans.md`).
            org_id (UUID): An organization: the boundary of every other resource.
            status (PlanStatus): Where a plan stands.
            thread_id (UUID): A conversation thread on an agent.
            title (str):
            todos (list[Todo]):
            updated_at (datetime.datetime):
            version (int): Grows with every change of the plan or one of its todos.
    """

    created_at: datetime.datetime
    created_by: str
    description: str
    id: UUID
    org_id: UUID
    status: PlanStatus
    thread_id: UUID
    title: str
    todos: list[Todo]
    updated_at: datetime.datetime
    version: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        created_by = self.created_by

        description = self.description

        id = str(self.id)

        org_id = str(self.org_id)

        status = self.status.value

        thread_id = str(self.thread_id)

        title = self.title

        todos = []
        for todos_item_data in self.todos:
            todos_item = todos_item_data.to_dict()
            todos.append(todos_item)

        updated_at = self.updated_at.isoformat()

        version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "created_by": created_by,
                "description": description,
                "id": id,
                "org_id": org_id,
                "status": status,
                "thread_id": thread_id,
                "title": title,
                "todos": todos,
                "updated_at": updated_at,
                "version": version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.todo import Todo

        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        created_by = d.pop("created_by")

        description = d.pop("description")

        id = UUID(d.pop("id"))

        org_id = UUID(d.pop("org_id"))

        status = PlanStatus(d.pop("status"))

        thread_id = UUID(d.pop("thread_id"))

        title = d.pop("title")

        todos = []
        _todos = d.pop("todos")
        for todos_item_data in _todos:
            todos_item = Todo.from_dict(todos_item_data)

            todos.append(todos_item)

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        version = d.pop("version")

        plan = cls(
            created_at=created_at,
            created_by=created_by,
            description=description,
            id=id,
            org_id=org_id,
            status=status,
            thread_id=thread_id,
            title=title,
            todos=todos,
            updated_at=updated_at,
            version=version,
        )

        plan.additional_properties = d
        return plan

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
