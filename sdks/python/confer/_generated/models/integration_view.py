from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="IntegrationView")


@_attrs_define
class IntegrationView:
    """An integration as shown (never its connection string).

    Attributes:
        created_at (str):
        id (str):
        kind (str):
        name (str):
        org_id (str):
        slug (str):
        updated_at (str):
        tables (list[str] | None | Unset):
    """

    created_at: str
    id: str
    kind: str
    name: str
    org_id: str
    slug: str
    updated_at: str
    tables: list[str] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at

        id = self.id

        kind = self.kind

        name = self.name

        org_id = self.org_id

        slug = self.slug

        updated_at = self.updated_at

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
                "created_at": created_at,
                "id": id,
                "kind": kind,
                "name": name,
                "org_id": org_id,
                "slug": slug,
                "updated_at": updated_at,
            }
        )
        if tables is not UNSET:
            field_dict["tables"] = tables

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = d.pop("created_at")

        id = d.pop("id")

        kind = d.pop("kind")

        name = d.pop("name")

        org_id = d.pop("org_id")

        slug = d.pop("slug")

        updated_at = d.pop("updated_at")

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

        integration_view = cls(
            created_at=created_at,
            id=id,
            kind=kind,
            name=name,
            org_id=org_id,
            slug=slug,
            updated_at=updated_at,
            tables=tables,
        )

        integration_view.additional_properties = d
        return integration_view

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
