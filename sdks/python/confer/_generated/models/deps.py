from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

T = TypeVar("T", bound="Deps")


@_attrs_define
class Deps:
    """The deps routes' body.

    Attributes:
        depends_on (list[UUID]):
    """

    depends_on: list[UUID]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        depends_on = []
        for depends_on_item_data in self.depends_on:
            depends_on_item = str(depends_on_item_data)
            depends_on.append(depends_on_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "dependsOn": depends_on,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        depends_on = []
        _depends_on = d.pop("dependsOn")
        for depends_on_item_data in _depends_on:
            depends_on_item = UUID(depends_on_item_data)

            depends_on.append(depends_on_item)

        deps = cls(
            depends_on=depends_on,
        )

        deps.additional_properties = d
        return deps

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
