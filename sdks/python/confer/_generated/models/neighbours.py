from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

if TYPE_CHECKING:
    from ..models.todo import Todo


T = TypeVar("T", bound="Neighbours")


@_attrs_define
class Neighbours:
    """A todo's edges both ways.

    Attributes:
        dependents (list[Todo]):
        depends_on (list[Todo]):
    """

    dependents: list[Todo]
    depends_on: list[Todo]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        dependents = []
        for dependents_item_data in self.dependents:
            dependents_item = dependents_item_data.to_dict()
            dependents.append(dependents_item)

        depends_on = []
        for depends_on_item_data in self.depends_on:
            depends_on_item = depends_on_item_data.to_dict()
            depends_on.append(depends_on_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "dependents": dependents,
                "depends_on": depends_on,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.todo import Todo

        d = dict(src_dict)
        dependents = []
        _dependents = d.pop("dependents")
        for dependents_item_data in _dependents:
            dependents_item = Todo.from_dict(dependents_item_data)

            dependents.append(dependents_item)

        depends_on = []
        _depends_on = d.pop("depends_on")
        for depends_on_item_data in _depends_on:
            depends_on_item = Todo.from_dict(depends_on_item_data)

            depends_on.append(depends_on_item)

        neighbours = cls(
            dependents=dependents,
            depends_on=depends_on,
        )

        neighbours.additional_properties = d
        return neighbours

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
