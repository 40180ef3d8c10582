from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.credentials import Credentials
    from ..models.settings_change import SettingsChange


T = TypeVar("T", bound="UpdateChannel")


@_attrs_define
class UpdateChannel:
    """`PATCH …/channels/{channelId}` body.

    Attributes:
        credentials (Credentials | None | Unset):
        enabled (bool | None | Unset):
        name (None | str | Unset):
        rotate_verify_token (bool | Unset): WhatsApp: a new verify token, shown in the answer.
        settings (None | SettingsChange | Unset):
    """

    credentials: Credentials | None | Unset = UNSET
    enabled: bool | None | Unset = UNSET
    name: None | str | Unset = UNSET
    rotate_verify_token: bool | Unset = UNSET
    settings: None | SettingsChange | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.credentials import Credentials
        from ..models.settings_change import SettingsChange

        credentials: dict[str, Any] | None | Unset
        if isinstance(self.credentials, Unset):
            credentials = UNSET
        elif isinstance(self.credentials, Credentials):
            credentials = self.credentials.to_dict()
        else:
            credentials = self.credentials

        enabled: bool | None | Unset
        if isinstance(self.enabled, Unset):
            enabled = UNSET
        else:
            enabled = self.enabled

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        rotate_verify_token = self.rotate_verify_token

        settings: dict[str, Any] | None | Unset
        if isinstance(self.settings, Unset):
            settings = UNSET
        elif isinstance(self.settings, SettingsChange):
            settings = self.settings.to_dict()
        else:
            settings = self.settings

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if credentials is not UNSET:
            field_dict["credentials"] = credentials
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if name is not UNSET:
            field_dict["name"] = name
        if rotate_verify_token is not UNSET:
            field_dict["rotateVerifyToken"] = rotate_verify_token
        if settings is not UNSET:
            field_dict["settings"] = settings

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.credentials import Credentials
        from ..models.settings_change import SettingsChange

        d = dict(src_dict)

        def _parse_credentials(data: object) -> Credentials | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                credentials_type_0 = Credentials.from_dict(data)

                return credentials_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Credentials | None | Unset, data)

        credentials = _parse_credentials(d.pop("credentials", UNSET))

        def _parse_enabled(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        enabled = _parse_enabled(d.pop("enabled", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        rotate_verify_token = d.pop("rotateVerifyToken", UNSET)

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

        update_channel = cls(
            credentials=credentials,
            enabled=enabled,
            name=name,
            rotate_verify_token=rotate_verify_token,
            settings=settings,
        )

        return update_channel
