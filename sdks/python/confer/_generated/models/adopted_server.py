from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

T = TypeVar("T", bound="AdoptedServer")


@_attrs_define
class AdoptedServer:
    """An MCP server the new agent has (`mcp_servers` of the answer).

    Attributes:
        created (bool): Whether `use` made it (false: an existing server was attached).
        mcp_server_id (UUID):
        name (str):
    """

    created: bool
    mcp_server_id: UUID
    name: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created = self.created

        mcp_server_id = str(self.mcp_server_id)

        name = self.name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created": created,
                "mcp_server_id": mcp_server_id,
                "name": name,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created = d.pop("created")

        mcp_server_id = UUID(d.pop("mcp_server_id"))

        name = d.pop("name")

        adopted_server = cls(
            created=created,
            mcp_server_id=mcp_server_id,
            name=name,
        )

        adopted_server.additional_properties = d
        return adopted_server

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
