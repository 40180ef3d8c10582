from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.display_names import DisplayNames
from ..models.identity import Identity
from ..models.persistence import Persistence
from ..models.publication_mode import PublicationMode
from ..models.publication_status import PublicationStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="PublicChatConfig")


@_attrs_define
class PublicChatConfig:
    """A publication as a visitor's page sees it: nothing of its limits but the
    message length, nothing of its org, tools or secrets.

        Attributes:
            description (str):
            display_names (DisplayNames): How visitors are named in multiplayer threads.
            identity (Identity): Whether visitors are identified by the host site.
            max_message_chars (int):
            mode (PublicationMode): The kind of the threads a publication creates.
            persistence (Persistence): Where the chat page keeps a visitor's secret, thread and last event id.
            slug (str):
            status (PublicationStatus): Whether a publication serves visitors.
            suggested_prompts (list[str]):
            theme_color (str):
            title (str):
            avatar_url (None | str | Unset):
            greeting (None | str | Unset):
    """

    description: str
    display_names: DisplayNames
    identity: Identity
    max_message_chars: int
    mode: PublicationMode
    persistence: Persistence
    slug: str
    status: PublicationStatus
    suggested_prompts: list[str]
    theme_color: str
    title: str
    avatar_url: None | str | Unset = UNSET
    greeting: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        description = self.description

        display_names = self.display_names.value

        identity = self.identity.value

        max_message_chars = self.max_message_chars

        mode = self.mode.value

        persistence = self.persistence.value

        slug = self.slug

        status = self.status.value

        suggested_prompts = self.suggested_prompts

        theme_color = self.theme_color

        title = self.title

        avatar_url: None | str | Unset
        if isinstance(self.avatar_url, Unset):
            avatar_url = UNSET
        else:
            avatar_url = self.avatar_url

        greeting: None | str | Unset
        if isinstance(self.greeting, Unset):
            greeting = UNSET
        else:
            greeting = self.greeting

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "description": description,
                "display_names": display_names,
                "identity": identity,
                "max_message_chars": max_message_chars,
                "mode": mode,
                "persistence": persistence,
                "slug": slug,
                "status": status,
                "suggested_prompts": suggested_prompts,
                "theme_color": theme_color,
                "title": title,
            }
        )
        if avatar_url is not UNSET:
            field_dict["avatar_url"] = avatar_url
        if greeting is not UNSET:
            field_dict["greeting"] = greeting

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        description = d.pop("description")

        display_names = DisplayNames(d.pop("display_names"))

        identity = Identity(d.pop("identity"))

        max_message_chars = d.pop("max_message_chars")

        mode = PublicationMode(d.pop("mode"))

        persistence = Persistence(d.pop("persistence"))

        slug = d.pop("slug")

        status = PublicationStatus(d.pop("status"))

        suggested_prompts = cast(list[str], d.pop("suggested_prompts"))

        theme_color = d.pop("theme_color")

        title = d.pop("title")

        def _parse_avatar_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        avatar_url = _parse_avatar_url(d.pop("avatar_url", UNSET))

        def _parse_greeting(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        greeting = _parse_greeting(d.pop("greeting", UNSET))

        public_chat_config = cls(
            description=description,
            display_names=display_names,
            identity=identity,
            max_message_chars=max_message_chars,
            mode=mode,
            persistence=persistence,
            slug=slug,
            status=status,
            suggested_prompts=suggested_prompts,
            theme_color=theme_color,
            title=title,
            avatar_url=avatar_url,
            greeting=greeting,
        )

        public_chat_config.additional_properties = d
        return public_chat_config

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
