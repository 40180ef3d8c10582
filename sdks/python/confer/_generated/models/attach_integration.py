from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="AttachIntegration")


@_attrs_define
class AttachIntegration:
    """`POST /api/agents/{id}/integrations` body.

    Attributes:
        integration_id (UUID): An org's database integration (`tools.md` §7).
        allowed_tables (list[str] | None | Unset): `null` or absent: every exposed table.
    """

    integration_id: UUID
    allowed_tables: list[str] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        integration_id = str(self.integration_id)

        allowed_tables: list[str] | None | Unset
        if isinstance(self.allowed_tables, Unset):
            allowed_tables = UNSET
        elif isinstance(self.allowed_tables, list):
            allowed_tables = self.allowed_tables

        else:
            allowed_tables = self.allowed_tables

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "integrationId": integration_id,
            }
        )
        if allowed_tables is not UNSET:
            field_dict["allowedTables"] = allowed_tables

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        integration_id = UUID(d.pop("integrationId"))

        def _parse_allowed_tables(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                allowed_tables_type_0 = cast(list[str], data)

                return allowed_tables_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        allowed_tables = _parse_allowed_tables(d.pop("allowedTables", UNSET))

        attach_integration = cls(
            integration_id=integration_id,
            allowed_tables=allowed_tables,
        )

        attach_integration.additional_properties = d
        return attach_integration

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
