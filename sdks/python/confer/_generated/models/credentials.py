from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="Credentials")


@_attrs_define
class Credentials:
    """The credentials a channel's vendor takes, write-only (sealed when
    stored, never answered or logged).

        Attributes:
            access_token (None | str | Unset): WhatsApp.
            app_secret (None | str | Unset): WhatsApp.
            bot_token (None | str | Unset): Telegram, Slack.
            signing_secret (None | str | Unset): Slack.
    """

    access_token: None | str | Unset = UNSET
    app_secret: None | str | Unset = UNSET
    bot_token: None | str | Unset = UNSET
    signing_secret: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        access_token: None | str | Unset
        if isinstance(self.access_token, Unset):
            access_token = UNSET
        else:
            access_token = self.access_token

        app_secret: None | str | Unset
        if isinstance(self.app_secret, Unset):
            app_secret = UNSET
        else:
            app_secret = self.app_secret

        bot_token: None | str | Unset
        if isinstance(self.bot_token, Unset):
            bot_token = UNSET
        else:
            bot_token = self.bot_token

        signing_secret: None | str | Unset
        if isinstance(self.signing_secret, Unset):
            signing_secret = UNSET
        else:
            signing_secret = self.signing_secret

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if access_token is not UNSET:
            field_dict["accessToken"] = access_token
        if app_secret is not UNSET:
            field_dict["appSecret"] = app_secret
        if bot_token is not UNSET:
            field_dict["botToken"] = bot_token
        if signing_secret is not UNSET:
            field_dict["signingSecret"] = signing_secret

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_access_token(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        access_token = _parse_access_token(d.pop("accessToken", UNSET))

        def _parse_app_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        app_secret = _parse_app_secret(d.pop("appSecret", UNSET))

        def _parse_bot_token(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        bot_token = _parse_bot_token(d.pop("botToken", UNSET))

        def _parse_signing_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        signing_secret = _parse_signing_secret(d.pop("signingSecret", UNSET))

        credentials = cls(
            access_token=access_token,
            app_secret=app_secret,
            bot_token=bot_token,
            signing_secret=signing_secret,
        )

        return credentials
