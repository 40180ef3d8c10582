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
    from ..models.readiness import Readiness


T = TypeVar("T", bound="ProfileView")


@_attrs_define
class ProfileView:
    """An agent's profile as every profile route answers it.

    Attributes:
        agent_id (UUID):
        capabilities (list[Capability]):
        description (str): The profile's description, else the agent's.
        listed (bool):
        org_id (UUID):
        readiness (Readiness): `readiness`: 20 points for each of five things a good listing has.
        tags (list[str]):
        title (str): The profile's title, else the agent's name.
        version (int): 0 until first stored; the `ETag`.
        visibility (Visibility): Who sees a listing: its own org, or every org of the instance.
        avatar_url (None | str | Unset): `/api/marketplace/avatars/{agentId}?v={hash}`, or null.
        category (None | str | Unset):
        created_at (datetime.datetime | None | Unset):
        updated_at (datetime.datetime | None | Unset):
    """

    agent_id: UUID
    capabilities: list[Capability]
    description: str
    listed: bool
    org_id: UUID
    readiness: Readiness
    tags: list[str]
    title: str
    version: int
    visibility: Visibility
    avatar_url: None | str | Unset = UNSET
    category: None | str | Unset = UNSET
    created_at: datetime.datetime | None | Unset = UNSET
    updated_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = str(self.agent_id)

        capabilities = []
        for capabilities_item_data in self.capabilities:
            capabilities_item = capabilities_item_data.to_dict()
            capabilities.append(capabilities_item)

        description = self.description

        listed = self.listed

        org_id = str(self.org_id)

        readiness = self.readiness.to_dict()

        tags = self.tags

        title = self.title

        version = self.version

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

        created_at: None | str | Unset
        if isinstance(self.created_at, Unset):
            created_at = UNSET
        elif isinstance(self.created_at, datetime.datetime):
            created_at = self.created_at.isoformat()
        else:
            created_at = self.created_at

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
                "agent_id": agent_id,
                "capabilities": capabilities,
                "description": description,
                "listed": listed,
                "org_id": org_id,
                "readiness": readiness,
                "tags": tags,
                "title": title,
                "version": version,
                "visibility": visibility,
            }
        )
        if avatar_url is not UNSET:
            field_dict["avatar_url"] = avatar_url
        if category is not UNSET:
            field_dict["category"] = category
        if created_at is not UNSET:
            field_dict["created_at"] = created_at
        if updated_at is not UNSET:
            field_dict["updated_at"] = updated_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.capability import Capability
        from ..models.readiness import Readiness

        d = dict(src_dict)
        agent_id = UUID(d.pop("agent_id"))

        capabilities = []
        _capabilities = d.pop("capabilities")
        for capabilities_item_data in _capabilities:
            capabilities_item = Capability.from_dict(capabilities_item_data)

            capabilities.append(capabilities_item)

        description = d.pop("description")

        listed = d.pop("listed")

        org_id = UUID(d.pop("org_id"))

        readiness = Readiness.from_dict(d.pop("readiness"))

        tags = cast(list[str], d.pop("tags"))

        title = d.pop("title")

        version = d.pop("version")

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

        def _parse_created_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                created_at_type_0 = datetime.datetime.fromisoformat(data)

                return created_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        created_at = _parse_created_at(d.pop("created_at", UNSET))

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

        profile_view = cls(
            agent_id=agent_id,
            capabilities=capabilities,
            description=description,
            listed=listed,
            org_id=org_id,
            readiness=readiness,
            tags=tags,
            title=title,
            version=version,
            visibility=visibility,
            avatar_url=avatar_url,
            category=category,
            created_at=created_at,
            updated_at=updated_at,
        )

        profile_view.additional_properties = d
        return profile_view

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
