from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.identity import Identity
from ..models.persistence import Persistence
from ..models.publication_mode import PublicationMode
from ..models.publication_status import PublicationStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.limits_view import LimitsView
    from ..models.usage_today import UsageToday


T = TypeVar("T", bound="PublicationView")


@_attrs_define
class PublicationView:
    """A publication as every route returns it.

    Attributes:
        agent_id (str):
        created_at (str):
        description (str):
        effective_allowed_domains (list[str]): Its own list (or the org's), each covered by the org's list now.
        embed_snippet (str):
        generation (int):
        has_identity_secret (bool):
        id (str):
        identity (Identity): Whether visitors are identified by the host site.
        is_active (bool):
        limits (LimitsView): A publication's limits as returned.
        mode (PublicationMode): The kind of the threads a publication creates.
        org_id (str):
        persistence (Persistence): Where the chat page keeps a visitor's secret, thread and last event id.
        public_tools (list[str]):
        slug (str):
        status (PublicationStatus): Whether a publication serves visitors.
        suggested_prompts (list[str]):
        theme_color (str):
        title (str):
        updated_at (str):
        url (str): `{CONFER_PUBLIC_URL}/c/{slug}`.
        usage_today (UsageToday): Today's (UTC) tokens of a publication against its budget.
        visibility (str): `private` iff identity is `required`.
        allowed_domains (list[str] | None | Unset):
        avatar_url (None | str | Unset):
        greeting (None | str | Unset):
        identity_secret (None | str | Unset): The identity secret, only in the answer that made it.
        retention_days (int | None | Unset):
    """

    agent_id: str
    created_at: str
    description: str
    effective_allowed_domains: list[str]
    embed_snippet: str
    generation: int
    has_identity_secret: bool
    id: str
    identity: Identity
    is_active: bool
    limits: LimitsView
    mode: PublicationMode
    org_id: str
    persistence: Persistence
    public_tools: list[str]
    slug: str
    status: PublicationStatus
    suggested_prompts: list[str]
    theme_color: str
    title: str
    updated_at: str
    url: str
    usage_today: UsageToday
    visibility: str
    allowed_domains: list[str] | None | Unset = UNSET
    avatar_url: None | str | Unset = UNSET
    greeting: None | str | Unset = UNSET
    identity_secret: None | str | Unset = UNSET
    retention_days: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        created_at = self.created_at

        description = self.description

        effective_allowed_domains = self.effective_allowed_domains

        embed_snippet = self.embed_snippet

        generation = self.generation

        has_identity_secret = self.has_identity_secret

        id = self.id

        identity = self.identity.value

        is_active = self.is_active

        limits = self.limits.to_dict()

        mode = self.mode.value

        org_id = self.org_id

        persistence = self.persistence.value

        public_tools = self.public_tools

        slug = self.slug

        status = self.status.value

        suggested_prompts = self.suggested_prompts

        theme_color = self.theme_color

        title = self.title

        updated_at = self.updated_at

        url = self.url

        usage_today = self.usage_today.to_dict()

        visibility = self.visibility

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

        greeting: None | str | Unset
        if isinstance(self.greeting, Unset):
            greeting = UNSET
        else:
            greeting = self.greeting

        identity_secret: None | str | Unset
        if isinstance(self.identity_secret, Unset):
            identity_secret = UNSET
        else:
            identity_secret = self.identity_secret

        retention_days: int | None | Unset
        if isinstance(self.retention_days, Unset):
            retention_days = UNSET
        else:
            retention_days = self.retention_days

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "created_at": created_at,
                "description": description,
                "effective_allowed_domains": effective_allowed_domains,
                "embed_snippet": embed_snippet,
                "generation": generation,
                "has_identity_secret": has_identity_secret,
                "id": id,
                "identity": identity,
                "is_active": is_active,
                "limits": limits,
                "mode": mode,
                "org_id": org_id,
                "persistence": persistence,
                "public_tools": public_tools,
                "slug": slug,
                "status": status,
                "suggested_prompts": suggested_prompts,
                "theme_color": theme_color,
                "title": title,
                "updated_at": updated_at,
                "url": url,
                "usage_today": usage_today,
                "visibility": visibility,
            }
        )
        if allowed_domains is not UNSET:
            field_dict["allowed_domains"] = allowed_domains
        if avatar_url is not UNSET:
            field_dict["avatar_url"] = avatar_url
        if greeting is not UNSET:
            field_dict["greeting"] = greeting
        if identity_secret is not UNSET:
            field_dict["identity_secret"] = identity_secret
        if retention_days is not UNSET:
            field_dict["retention_days"] = retention_days

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.limits_view import LimitsView
        from ..models.usage_today import UsageToday

        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        created_at = d.pop("created_at")

        description = d.pop("description")

        effective_allowed_domains = cast(list[str], d.pop("effective_allowed_domains"))

        embed_snippet = d.pop("embed_snippet")

        generation = d.pop("generation")

        has_identity_secret = d.pop("has_identity_secret")

        id = d.pop("id")

        identity = Identity(d.pop("identity"))

        is_active = d.pop("is_active")

        limits = LimitsView.from_dict(d.pop("limits"))

        mode = PublicationMode(d.pop("mode"))

        org_id = d.pop("org_id")

        persistence = Persistence(d.pop("persistence"))

        public_tools = cast(list[str], d.pop("public_tools"))

        slug = d.pop("slug")

        status = PublicationStatus(d.pop("status"))

        suggested_prompts = cast(list[str], d.pop("suggested_prompts"))

        theme_color = d.pop("theme_color")

        title = d.pop("title")

        updated_at = d.pop("updated_at")

        url = d.pop("url")

        usage_today = UsageToday.from_dict(d.pop("usage_today"))

        visibility = d.pop("visibility")

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

        allowed_domains = _parse_allowed_domains(d.pop("allowed_domains", UNSET))

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

        def _parse_identity_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        identity_secret = _parse_identity_secret(d.pop("identity_secret", UNSET))

        def _parse_retention_days(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        retention_days = _parse_retention_days(d.pop("retention_days", UNSET))

        publication_view = cls(
            agent_id=agent_id,
            created_at=created_at,
            description=description,
            effective_allowed_domains=effective_allowed_domains,
            embed_snippet=embed_snippet,
            generation=generation,
            has_identity_secret=has_identity_secret,
            id=id,
            identity=identity,
            is_active=is_active,
            limits=limits,
            mode=mode,
            org_id=org_id,
            persistence=persistence,
            public_tools=public_tools,
            slug=slug,
            status=status,
            suggested_prompts=suggested_prompts,
            theme_color=theme_color,
            title=title,
            updated_at=updated_at,
            url=url,
            usage_today=usage_today,
            visibility=visibility,
            allowed_domains=allowed_domains,
            avatar_url=avatar_url,
            greeting=greeting,
            identity_secret=identity_secret,
            retention_days=retention_days,
        )

        publication_view.additional_properties = d
        return publication_view

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
