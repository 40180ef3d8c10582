from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.publication_body_limits_type_0 import PublicationBodyLimitsType0


T = TypeVar("T", bound="PublicationBody")


@_attrs_define
class PublicationBody:
    """`POST` and `PATCH` body: only the fields present change (`null` clears a
    nullable one). `slug` only on POST; `rotateIdentitySecret` and
    `revokeSessions` only on PATCH.

        Attributes:
            allowed_domains (list[str] | None | Unset):
            avatar_url (None | str | Unset):
            description (None | str | Unset):
            greeting (None | str | Unset):
            identity (None | str | Unset): `anonymous`, `optional` or `required`.
            limits (None | PublicationBodyLimitsType0 | Unset): Merged by key: `visitorMessagesPerMinute`,
                `ipMessagesPerMinute`,
                `maxConcurrentTurns`, `maxMessageChars`, `dailyTokenBudget`,
                `maxOutputTokens`.
            mode (None | str | Unset): `single` or `multiplayer` (for new threads).
            persistence (None | str | Unset): `local`, `session` or `none`.
            public_tools (list[str] | None | Unset):
            retention_days (int | None | Unset):
            revoke_sessions (bool | None | Unset):
            rotate_identity_secret (bool | None | Unset):
            slug (None | str | Unset):
            status (None | str | Unset): `active` or `paused`.
            suggested_prompts (list[str] | None | Unset):
            theme_color (None | str | Unset):
            title (None | str | Unset):
            visibility (None | str | Unset): Upstream's alias of identity: `public` or `private`.
    """

    allowed_domains: list[str] | None | Unset = UNSET
    avatar_url: None | str | Unset = UNSET
    description: None | str | Unset = UNSET
    greeting: None | str | Unset = UNSET
    identity: None | str | Unset = UNSET
    limits: None | PublicationBodyLimitsType0 | Unset = UNSET
    mode: None | str | Unset = UNSET
    persistence: None | str | Unset = UNSET
    public_tools: list[str] | None | Unset = UNSET
    retention_days: int | None | Unset = UNSET
    revoke_sessions: bool | None | Unset = UNSET
    rotate_identity_secret: bool | None | Unset = UNSET
    slug: None | str | Unset = UNSET
    status: None | str | Unset = UNSET
    suggested_prompts: list[str] | None | Unset = UNSET
    theme_color: None | str | Unset = UNSET
    title: None | str | Unset = UNSET
    visibility: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.publication_body_limits_type_0 import PublicationBodyLimitsType0

        allowed_domains: list[str] | None | Unset
        if isinstance(self.allowed_domains, Unset):
            allowed_domains = UNSET
        elif isinstance(self.allowed_domains, list):
            allowed_domains = self.allowed_domains

        else:
            allowed_domains = self.allowed_domains

        avatar_url: None | str | Unset
        if isinstance(self.avatar_url, Unset):
            avatar_url = UNSET
        else:
            avatar_url = self.avatar_url

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        greeting: None | str | Unset
        if isinstance(self.greeting, Unset):
            greeting = UNSET
        else:
            greeting = self.greeting

        identity: None | str | Unset
        if isinstance(self.identity, Unset):
            identity = UNSET
        else:
            identity = self.identity

        limits: dict[str, Any] | None | Unset
        if isinstance(self.limits, Unset):
            limits = UNSET
        elif isinstance(self.limits, PublicationBodyLimitsType0):
            limits = self.limits.to_dict()
        else:
            limits = self.limits

        mode: None | str | Unset
        if isinstance(self.mode, Unset):
            mode = UNSET
        else:
            mode = self.mode

        persistence: None | str | Unset
        if isinstance(self.persistence, Unset):
            persistence = UNSET
        else:
            persistence = self.persistence

        public_tools: list[str] | None | Unset
        if isinstance(self.public_tools, Unset):
            public_tools = UNSET
        elif isinstance(self.public_tools, list):
            public_tools = self.public_tools

        else:
            public_tools = self.public_tools

        retention_days: int | None | Unset
        if isinstance(self.retention_days, Unset):
            retention_days = UNSET
        else:
            retention_days = self.retention_days

        revoke_sessions: bool | None | Unset
        if isinstance(self.revoke_sessions, Unset):
            revoke_sessions = UNSET
        else:
            revoke_sessions = self.revoke_sessions

        rotate_identity_secret: bool | None | Unset
        if isinstance(self.rotate_identity_secret, Unset):
            rotate_identity_secret = UNSET
        else:
            rotate_identity_secret = self.rotate_identity_secret

        slug: None | str | Unset
        if isinstance(self.slug, Unset):
            slug = UNSET
        else:
            slug = self.slug

        status: None | str | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        else:
            status = self.status

        suggested_prompts: list[str] | None | Unset
        if isinstance(self.suggested_prompts, Unset):
            suggested_prompts = UNSET
        elif isinstance(self.suggested_prompts, list):
            suggested_prompts = self.suggested_prompts

        else:
            suggested_prompts = self.suggested_prompts

        theme_color: None | str | Unset
        if isinstance(self.theme_color, Unset):
            theme_color = UNSET
        else:
            theme_color = self.theme_color

        title: None | str | Unset
        if isinstance(self.title, Unset):
            title = UNSET
        else:
            title = self.title

        visibility: None | str | Unset
        if isinstance(self.visibility, Unset):
            visibility = UNSET
        else:
            visibility = self.visibility

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if allowed_domains is not UNSET:
            field_dict["allowedDomains"] = allowed_domains
        if avatar_url is not UNSET:
            field_dict["avatarUrl"] = avatar_url
        if description is not UNSET:
            field_dict["description"] = description
        if greeting is not UNSET:
            field_dict["greeting"] = greeting
        if identity is not UNSET:
            field_dict["identity"] = identity
        if limits is not UNSET:
            field_dict["limits"] = limits
        if mode is not UNSET:
            field_dict["mode"] = mode
        if persistence is not UNSET:
            field_dict["persistence"] = persistence
        if public_tools is not UNSET:
            field_dict["publicTools"] = public_tools
        if retention_days is not UNSET:
            field_dict["retentionDays"] = retention_days
        if revoke_sessions is not UNSET:
            field_dict["revokeSessions"] = revoke_sessions
        if rotate_identity_secret is not UNSET:
            field_dict["rotateIdentitySecret"] = rotate_identity_secret
        if slug is not UNSET:
            field_dict["slug"] = slug
        if status is not UNSET:
            field_dict["status"] = status
        if suggested_prompts is not UNSET:
            field_dict["suggestedPrompts"] = suggested_prompts
        if theme_color is not UNSET:
            field_dict["themeColor"] = theme_color
        if title is not UNSET:
            field_dict["title"] = title
        if visibility is not UNSET:
            field_dict["visibility"] = visibility

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.publication_body_limits_type_0 import PublicationBodyLimitsType0

        d = dict(src_dict)

        def _parse_allowed_domains(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                allowed_domains_type_0 = cast(list[str], data)

                return allowed_domains_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        allowed_domains = _parse_allowed_domains(d.pop("allowedDomains", UNSET))

        def _parse_avatar_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        avatar_url = _parse_avatar_url(d.pop("avatarUrl", UNSET))

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_greeting(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        greeting = _parse_greeting(d.pop("greeting", UNSET))

        def _parse_identity(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        identity = _parse_identity(d.pop("identity", UNSET))

        def _parse_limits(data: object) -> None | PublicationBodyLimitsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                limits_type_0 = PublicationBodyLimitsType0.from_dict(data)

                return limits_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PublicationBodyLimitsType0 | Unset, data)

        limits = _parse_limits(d.pop("limits", UNSET))

        def _parse_mode(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        mode = _parse_mode(d.pop("mode", UNSET))

        def _parse_persistence(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        persistence = _parse_persistence(d.pop("persistence", UNSET))

        def _parse_public_tools(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                public_tools_type_0 = cast(list[str], data)

                return public_tools_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        public_tools = _parse_public_tools(d.pop("publicTools", UNSET))

        def _parse_retention_days(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        retention_days = _parse_retention_days(d.pop("retentionDays", UNSET))

        def _parse_revoke_sessions(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        revoke_sessions = _parse_revoke_sessions(d.pop("revokeSessions", UNSET))

        def _parse_rotate_identity_secret(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        rotate_identity_secret = _parse_rotate_identity_secret(d.pop("rotateIdentitySecret", UNSET))

        def _parse_slug(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        slug = _parse_slug(d.pop("slug", UNSET))

        def _parse_status(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        status = _parse_status(d.pop("status", UNSET))

        def _parse_suggested_prompts(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                suggested_prompts_type_0 = cast(list[str], data)

                return suggested_prompts_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        suggested_prompts = _parse_suggested_prompts(d.pop("suggestedPrompts", UNSET))

        def _parse_theme_color(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        theme_color = _parse_theme_color(d.pop("themeColor", UNSET))

        def _parse_title(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        title = _parse_title(d.pop("title", UNSET))

        def _parse_visibility(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        visibility = _parse_visibility(d.pop("visibility", UNSET))

        publication_body = cls(
            allowed_domains=allowed_domains,
            avatar_url=avatar_url,
            description=description,
            greeting=greeting,
            identity=identity,
            limits=limits,
            mode=mode,
            persistence=persistence,
            public_tools=public_tools,
            retention_days=retention_days,
            revoke_sessions=revoke_sessions,
            rotate_identity_secret=rotate_identity_secret,
            slug=slug,
            status=status,
            suggested_prompts=suggested_prompts,
            theme_color=theme_color,
            title=title,
            visibility=visibility,
        )

        publication_body.additional_properties = d
        return publication_body

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
