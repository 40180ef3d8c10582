from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="AttachedMcp")


@_attrs_define
class AttachedMcp:
    """An agent's attachment as shown.

    Attributes:
        mcp_server_id (str):
        name (str):
        slug (str):
        status (str):
        allowed_tools (list[str] | None | Unset):
    """

    mcp_server_id: str
    name: str
    slug: str
    status: str
    allowed_tools: list[str] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        mcp_server_id = self.mcp_server_id

        name = self.name

        slug = self.slug

        status = self.status

        allowed_tools: list[str] | None | Unset
        if isinstance(self.allowed_tools, Unset):
            allowed_tools = UNSET
        elif isinstance(self.allowed_tools, list):
            allowed_tools = self.allowed_tools

        else:
            allowed_tools = self.allowed_tools

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "mcp_server_id": mcp_server_id,
                "name": name,
                "slug": slug,
                "status": status,
            }
        )
        if allowed_tools is not UNSET:
            field_dict["allowed_tools"] = allowed_tools

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        mcp_server_id = d.pop("mcp_server_id")

        name = d.pop("name")

        slug = d.pop("slug")

        status = d.pop("status")

        def _parse_allowed_tools(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                allowed_tools_type_0 = cast(list[str], data)

                return allowed_tools_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        allowed_tools = _parse_allowed_tools(d.pop("allowed_tools", UNSET))

        attached_mcp = cls(
            mcp_server_id=mcp_server_id,
            name=name,
            slug=slug,
            status=status,
            allowed_tools=allowed_tools,
        )

        attached_mcp.additional_properties = d
        return attached_mcp

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
