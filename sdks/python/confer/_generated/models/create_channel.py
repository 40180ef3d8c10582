from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

from ..models.channel_kind import ChannelKind
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.credentials import Credentials
    from ..models.settings_change import SettingsChange


T = TypeVar("T", bound="CreateChannel")


@_attrs_define
class CreateChannel:
    """`POST /api/agents/{id}/channels` body.

    Attributes:
        credentials (Credentials): The credentials a channel's vendor takes, write-only (sealed when
            stored, never answered or logged).
        kind (ChannelKind): Which vendor a channel is on.
        name (None | str | Unset): 1–100 characters (default: the vendor's name).
        settings (None | SettingsChange | Unset):
    """

    credentials: Credentials
    kind: ChannelKind
    name: None | str | Unset = UNSET
    settings: None | SettingsChange | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.settings_change import SettingsChange

        credentials = self.credentials.to_dict()

        kind = self.kind.value

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        settings: dict[str, Any] | None | Unset
        if isinstance(self.settings, Unset):
            settings = UNSET
        elif isinstance(self.settings, SettingsChange):
            settings = self.settings.to_dict()
        else:
            settings = self.settings

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "credentials": credentials,
                "kind": kind,
            }
        )
        if name is not UNSET:
            field_dict["name"] = name
        if settings is not UNSET:
            field_dict["settings"] = settings

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.credentials import Credentials
        from ..models.settings_change import SettingsChange

        d = dict(src_dict)
        credentials = Credentials.from_dict(d.pop("credentials"))

        kind = ChannelKind(d.pop("kind"))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_settings(data: object) -> None | SettingsChange | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                settings_type_0 = SettingsChange.from_dict(data)

                return settings_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SettingsChange | Unset, data)

        settings = _parse_settings(d.pop("settings", UNSET))

        create_channel = cls(
            credentials=credentials,
            kind=kind,
            name=name,
            settings=settings,
        )

        return create_channel
