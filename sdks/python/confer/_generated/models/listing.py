from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.visibility import Visibility
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.capability import Capability
    from ..models.listed_server import ListedServer


T = TypeVar("T", bound="Listing")


@_attrs_define
class Listing:
    """One catalogue entry.

    Attributes:
        capabilities (list[Capability]):
        default_model (str):
        description (str):
        id (UUID): The agent's id.
        mcp_servers (list[ListedServer]):
        org_id (UUID):
        org_name (str):
        tags (list[str]):
        title (str):
        tools (list[str]): The org tools its default profile offers.
        visibility (Visibility): Who sees a listing: its own org, or every org of the instance.
        avatar_url (None | str | Unset):
        category (None | str | Unset):
        updated_at (datetime.datetime | None | Unset):
    """

    capabilities: list[Capability]
    default_model: str
    description: str
    id: UUID
    mcp_servers: list[ListedServer]
    org_id: UUID
    org_name: str
    tags: list[str]
    title: str
    tools: list[str]
    visibility: Visibility
    avatar_url: None | str | Unset = UNSET
    category: None | str | Unset = UNSET
    updated_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        capabilities = []
        for capabilities_item_data in self.capabilities:
            capabilities_item = capabilities_item_data.to_dict()
            capabilities.append(capabilities_item)

        default_model = self.default_model

        description = self.description

        id = str(self.id)

        mcp_servers = []
        for mcp_servers_item_data in self.mcp_servers:
            mcp_servers_item = mcp_servers_item_data.to_dict()
            mcp_servers.append(mcp_servers_item)

        org_id = str(self.org_id)

        org_name = self.org_name

        tags = self.tags

        title = self.title

        tools = self.tools

        visibility = self.visibility.value

        avatar_url: None | str | Unset
        if isinstance(self.avatar_url, Unset):
            avatar_url = UNSET
        else:
            avatar_url = self.avatar_url

        category: None | str | Unset
        if isinstance(self.category, Unset):
            category = UNSET
        else:
            category = self.category

        updated_at: None | str | Unset
        if isinstance(self.updated_at, Unset):
            updated_at = UNSET
        elif isinstance(self.updated_at, datetime.datetime):
            updated_at = self.updated_at.isoformat()
        else:
            updated_at = self.updated_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "capabilities": capabilities,
                "default_model": default_model,
                "description": description,
                "id": id,
                "mcp_servers": mcp_servers,
                "org_id": org_id,
                "org_name": org_name,
                "tags": tags,
                "title": title,
                "tools": tools,
                "visibility": visibility,
            }
        )
        if avatar_url is not UNSET:
            field_dict["avatar_url"] = avatar_url
        if category is not UNSET:
            field_dict["category"] = category
        if updated_at is not UNSET:
            field_dict["updated_at"] = updated_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.capability import Capability
        from ..models.listed_server import ListedServer

        d = dict(src_dict)
        capabilities = []
        _capabilities = d.pop("capabilities")
        for capabilities_item_data in _capabilities:
            capabilities_item = Capability.from_dict(capabilities_item_data)

            capabilities.append(capabilities_item)

        default_model = d.pop("default_model")

        description = d.pop("description")

        id = UUID(d.pop("id"))

        mcp_servers = []
        _mcp_servers = d.pop("mcp_servers")
        for mcp_servers_item_data in _mcp_servers:
            mcp_servers_item = ListedServer.from_dict(mcp_servers_item_data)

            mcp_servers.append(mcp_servers_item)

        org_id = UUID(d.pop("org_id"))

        org_name = d.pop("org_name")

        tags = cast(list[str], d.pop("tags"))

        title = d.pop("title")

        tools = cast(list[str], d.pop("tools"))

        visibility = Visibility(d.pop("visibility"))

        def _parse_avatar_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        avatar_url = _parse_avatar_url(d.pop("avatar_url", UNSET))

        def _parse_category(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        category = _parse_category(d.pop("category", UNSET))

        def _parse_updated_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                updated_at_type_0 = datetime.datetime.fromisoformat(data)

                return updated_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        updated_at = _parse_updated_at(d.pop("updated_at", UNSET))

        listing = cls(
            capabilities=capabilities,
            default_model=default_model,
            description=description,
            id=id,
            mcp_servers=mcp_servers,
            org_id=org_id,
            org_name=org_name,
            tags=tags,
            title=title,
            tools=tools,
            visibility=visibility,
            avatar_url=avatar_url,
            category=category,
            updated_at=updated_at,
        )

        listing.additional_properties = d
        return listing

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
