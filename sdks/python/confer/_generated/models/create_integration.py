from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateIntegration")


@_attrs_define
class CreateIntegration:
    """`POST /api/integrations` body.

    Attributes:
        connection_string (str): Write-only.
        kind (str): `postgres`.
        name (str):
        tables (list[str] | None | Unset): The tables and views of schema `public` exposed (`null`: all).
    """

    connection_string: str
    kind: str
    name: str
    tables: list[str] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        connection_string = self.connection_string

        kind = self.kind

        name = self.name

        tables: list[str] | None | Unset
        if isinstance(self.tables, Unset):
            tables = UNSET
        elif isinstance(self.tables, list):
            tables = self.tables

        else:
            tables = self.tables

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "connectionString": connection_string,
                "kind": kind,
                "name": name,
            }
        )
        if tables is not UNSET:
            field_dict["tables"] = tables

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        connection_string = d.pop("connectionString")

        kind = d.pop("kind")

        name = d.pop("name")

        def _parse_tables(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tables_type_0 = cast(list[str], data)

                return tables_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        tables = _parse_tables(d.pop("tables", UNSET))

        create_integration = cls(
            connection_string=connection_string,
            kind=kind,
            name=name,
            tables=tables,
        )

        create_integration.additional_properties = d
        return create_integration

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
