from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.publication_mode import PublicationMode
from ..models.publication_status import PublicationStatus

T = TypeVar("T", bound="PublishedChat")


@_attrs_define
class PublishedChat:
    """An agent's `published_chats` item.

    Attributes:
        id (str):
        is_active (bool):
        mode (PublicationMode): The kind of the threads a publication creates.
        slug (str):
        status (PublicationStatus): Whether a publication serves visitors.
        url (str):
    """

    id: str
    is_active: bool
    mode: PublicationMode
    slug: str
    status: PublicationStatus
    url: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        is_active = self.is_active

        mode = self.mode.value

        slug = self.slug

        status = self.status.value

        url = self.url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "is_active": is_active,
                "mode": mode,
                "slug": slug,
                "status": status,
                "url": url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        is_active = d.pop("is_active")

        mode = PublicationMode(d.pop("mode"))

        slug = d.pop("slug")

        status = PublicationStatus(d.pop("status"))

        url = d.pop("url")

        published_chat = cls(
            id=id,
            is_active=is_active,
            mode=mode,
            slug=slug,
            status=status,
            url=url,
        )

        published_chat.additional_properties = d
        return published_chat

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
