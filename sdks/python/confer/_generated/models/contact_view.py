from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="ContactView")


@_attrs_define
class ContactView:
    """A contact as answered.

    Attributes:
        channel_id (UUID):
        external_id (str):
        first_seen_at (datetime.datetime):
        id (UUID):
        last_message_at (datetime.datetime):
        message_count (int):
        display_name (None | str | Unset):
        thread_id (None | Unset | UUID):
        username (None | str | Unset):
    """

    channel_id: UUID
    external_id: str
    first_seen_at: datetime.datetime
    id: UUID
    last_message_at: datetime.datetime
    message_count: int
    display_name: None | str | Unset = UNSET
    thread_id: None | Unset | UUID = UNSET
    username: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        channel_id = str(self.channel_id)

        external_id = self.external_id

        first_seen_at = self.first_seen_at.isoformat()

        id = str(self.id)

        last_message_at = self.last_message_at.isoformat()

        message_count = self.message_count

        display_name: None | str | Unset
        if isinstance(self.display_name, Unset):
            display_name = UNSET
        else:
            display_name = self.display_name

        thread_id: None | str | Unset
        if isinstance(self.thread_id, Unset):
            thread_id = UNSET
        elif isinstance(self.thread_id, UUID):
            thread_id = str(self.thread_id)
        else:
            thread_id = self.thread_id

        username: None | str | Unset
        if isinstance(self.username, Unset):
            username = UNSET
        else:
            username = self.username

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "channel_id": channel_id,
                "external_id": external_id,
                "first_seen_at": first_seen_at,
                "id": id,
                "last_message_at": last_message_at,
                "message_count": message_count,
            }
        )
        if display_name is not UNSET:
            field_dict["display_name"] = display_name
        if thread_id is not UNSET:
            field_dict["thread_id"] = thread_id
        if username is not UNSET:
            field_dict["username"] = username

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        channel_id = UUID(d.pop("channel_id"))

        external_id = d.pop("external_id")

        first_seen_at = datetime.datetime.fromisoformat(d.pop("first_seen_at"))

        id = UUID(d.pop("id"))

        last_message_at = datetime.datetime.fromisoformat(d.pop("last_message_at"))

        message_count = d.pop("message_count")

        def _parse_display_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        display_name = _parse_display_name(d.pop("display_name", UNSET))

        def _parse_thread_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                thread_id_type_0 = UUID(data)

                return thread_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        thread_id = _parse_thread_id(d.pop("thread_id", UNSET))

        def _parse_username(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        username = _parse_username(d.pop("username", UNSET))

        contact_view = cls(
            channel_id=channel_id,
            external_id=external_id,
            first_seen_at=first_seen_at,
            id=id,
            last_message_at=last_message_at,
            message_count=message_count,
            display_name=display_name,
            thread_id=thread_id,
            username=username,
        )

        contact_view.additional_properties = d
        return contact_view

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
