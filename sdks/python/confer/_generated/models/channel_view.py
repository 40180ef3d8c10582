from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.channel_kind import ChannelKind
from ..models.channel_status import ChannelStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.channel_settings import ChannelSettings


T = TypeVar("T", bound="ChannelView")


@_attrs_define
class ChannelView:
    """A channel as the routes answer it.

    Attributes:
        agent_id (UUID):
        contact_count (int):
        created_at (datetime.datetime):
        enabled (bool):
        has_credentials (bool):
        id (UUID):
        kind (ChannelKind): Which vendor a channel is on.
        name (str):
        org_id (UUID):
        settings (ChannelSettings): A channel's settings, as stored and answered.
        status (ChannelStatus): Whether the channel's vendor accepts its credentials.
        updated_at (datetime.datetime):
        webhook_url (str): Where the vendor delivers (`{CONFER_PUBLIC_URL}/api/channels/{id}/webhook`).
        last_error (None | str | Unset):
        last_message_at (datetime.datetime | None | Unset):
        verify_token (None | str | Unset): WhatsApp: the verify token, shown on create and on a rotation only.
    """

    agent_id: UUID
    contact_count: int
    created_at: datetime.datetime
    enabled: bool
    has_credentials: bool
    id: UUID
    kind: ChannelKind
    name: str
    org_id: UUID
    settings: ChannelSettings
    status: ChannelStatus
    updated_at: datetime.datetime
    webhook_url: str
    last_error: None | str | Unset = UNSET
    last_message_at: datetime.datetime | None | Unset = UNSET
    verify_token: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = str(self.agent_id)

        contact_count = self.contact_count

        created_at = self.created_at.isoformat()

        enabled = self.enabled

        has_credentials = self.has_credentials

        id = str(self.id)

        kind = self.kind.value

        name = self.name

        org_id = str(self.org_id)

        settings = self.settings.to_dict()

        status = self.status.value

        updated_at = self.updated_at.isoformat()

        webhook_url = self.webhook_url

        last_error: None | str | Unset
        if isinstance(self.last_error, Unset):
            last_error = UNSET
        else:
            last_error = self.last_error

        last_message_at: None | str | Unset
        if isinstance(self.last_message_at, Unset):
            last_message_at = UNSET
        elif isinstance(self.last_message_at, datetime.datetime):
            last_message_at = self.last_message_at.isoformat()
        else:
            last_message_at = self.last_message_at

        verify_token: None | str | Unset
        if isinstance(self.verify_token, Unset):
            verify_token = UNSET
        else:
            verify_token = self.verify_token

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "contact_count": contact_count,
                "created_at": created_at,
                "enabled": enabled,
                "has_credentials": has_credentials,
                "id": id,
                "kind": kind,
                "name": name,
                "org_id": org_id,
                "settings": settings,
                "status": status,
                "updated_at": updated_at,
                "webhook_url": webhook_url,
            }
        )
        if last_error is not UNSET:
            field_dict["last_error"] = last_error
        if last_message_at is not UNSET:
            field_dict["last_message_at"] = last_message_at
        if verify_token is not UNSET:
            field_dict["verify_token"] = verify_token

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.channel_settings import ChannelSettings

        d = dict(src_dict)
        agent_id = UUID(d.pop("agent_id"))

        contact_count = d.pop("contact_count")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        enabled = d.pop("enabled")

        has_credentials = d.pop("has_credentials")

        id = UUID(d.pop("id"))

        kind = ChannelKind(d.pop("kind"))

        name = d.pop("name")

        org_id = UUID(d.pop("org_id"))

        settings = ChannelSettings.from_dict(d.pop("settings"))

        status = ChannelStatus(d.pop("status"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        webhook_url = d.pop("webhook_url")

        def _parse_last_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        last_error = _parse_last_error(d.pop("last_error", UNSET))

        def _parse_last_message_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_message_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_message_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        last_message_at = _parse_last_message_at(d.pop("last_message_at", UNSET))

        def _parse_verify_token(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        verify_token = _parse_verify_token(d.pop("verify_token", UNSET))

        channel_view = cls(
            agent_id=agent_id,
            contact_count=contact_count,
            created_at=created_at,
            enabled=enabled,
            has_credentials=has_credentials,
            id=id,
            kind=kind,
            name=name,
            org_id=org_id,
            settings=settings,
            status=status,
            updated_at=updated_at,
            webhook_url=webhook_url,
            last_error=last_error,
            last_message_at=last_message_at,
            verify_token=verify_token,
        )

        channel_view.additional_properties = d
        return channel_view

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
