from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="ManagedItem")


@_attrs_define
class ManagedItem:
    """An item of `GET /api/mcp-registry/managed`.

    Attributes:
        description (str): The registry's description, when it lists the URL; else empty.
        installed_mcp_server_ids (list[str]): The caller's org's servers made with this URL.
        name (str):
        scopes (list[str]):
        transport (str):
        url (str):
        title (None | str | Unset): The registry's title of the server with this URL, when it lists one.
    """

    description: str
    installed_mcp_server_ids: list[str]
    name: str
    scopes: list[str]
    transport: str
    url: str
    title: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        description = self.description

        installed_mcp_server_ids = self.installed_mcp_server_ids

        name = self.name

        scopes = self.scopes

        transport = self.transport

        url = self.url

        title: None | str | Unset
        if isinstance(self.title, Unset):
            title = UNSET
        else:
            title = self.title

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "description": description,
                "installed_mcp_server_ids": installed_mcp_server_ids,
                "name": name,
                "scopes": scopes,
                "transport": transport,
                "url": url,
            }
        )
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        description = d.pop("description")

        installed_mcp_server_ids = cast(list[str], d.pop("installed_mcp_server_ids"))

        name = d.pop("name")

        scopes = cast(list[str], d.pop("scopes"))

        transport = d.pop("transport")

        url = d.pop("url")

        def _parse_title(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        title = _parse_title(d.pop("title", UNSET))

        managed_item = cls(
            description=description,
            installed_mcp_server_ids=installed_mcp_server_ids,
            name=name,
            scopes=scopes,
            transport=transport,
            url=url,
            title=title,
        )

        managed_item.additional_properties = d
        return managed_item

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
