from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.put_fetch import PutFetch
    from ..models.put_search import PutSearch


T = TypeVar("T", bound="PutWebConfig")


@_attrs_define
class PutWebConfig:
    """`PUT /api/agents/{id}/web`: every field optional.

    Attributes:
        allowed_domains (list[str] | None | Unset): ≤ 100 host names or IP literals; an entry covers its subdomains.
        blocked_domains (list[str] | None | Unset): ≤ 100; blocked wins.
        enabled (bool | None | Unset):
        fetch (None | PutFetch | Unset):
        search (None | PutSearch | Unset):
    """

    allowed_domains: list[str] | None | Unset = UNSET
    blocked_domains: list[str] | None | Unset = UNSET
    enabled: bool | None | Unset = UNSET
    fetch: None | PutFetch | Unset = UNSET
    search: None | PutSearch | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.put_fetch import PutFetch
        from ..models.put_search import PutSearch

        allowed_domains: list[str] | None | Unset
        if isinstance(self.allowed_domains, Unset):
            allowed_domains = UNSET
        elif isinstance(self.allowed_domains, list):
            allowed_domains = self.allowed_domains

        else:
            allowed_domains = self.allowed_domains

        blocked_domains: list[str] | None | Unset
        if isinstance(self.blocked_domains, Unset):
            blocked_domains = UNSET
        elif isinstance(self.blocked_domains, list):
            blocked_domains = self.blocked_domains

        else:
            blocked_domains = self.blocked_domains

        enabled: bool | None | Unset
        if isinstance(self.enabled, Unset):
            enabled = UNSET
        else:
            enabled = self.enabled

        fetch: dict[str, Any] | None | Unset
        if isinstance(self.fetch, Unset):
            fetch = UNSET
        elif isinstance(self.fetch, PutFetch):
            fetch = self.fetch.to_dict()
        else:
            fetch = self.fetch

        search: dict[str, Any] | None | Unset
        if isinstance(self.search, Unset):
            search = UNSET
        elif isinstance(self.search, PutSearch):
            search = self.search.to_dict()
        else:
            search = self.search

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if allowed_domains is not UNSET:
            field_dict["allowedDomains"] = allowed_domains
        if blocked_domains is not UNSET:
            field_dict["blockedDomains"] = blocked_domains
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if fetch is not UNSET:
            field_dict["fetch"] = fetch
        if search is not UNSET:
            field_dict["search"] = search

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.put_fetch import PutFetch
        from ..models.put_search import PutSearch

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

        def _parse_blocked_domains(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                blocked_domains_type_0 = cast(list[str], data)

                return blocked_domains_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        blocked_domains = _parse_blocked_domains(d.pop("blockedDomains", UNSET))

        def _parse_enabled(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        enabled = _parse_enabled(d.pop("enabled", UNSET))

        def _parse_fetch(data: object) -> None | PutFetch | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                fetch_type_0 = PutFetch.from_dict(data)

                return fetch_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PutFetch | Unset, data)

        fetch = _parse_fetch(d.pop("fetch", UNSET))

        def _parse_search(data: object) -> None | PutSearch | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                search_type_0 = PutSearch.from_dict(data)

                return search_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PutSearch | Unset, data)

        search = _parse_search(d.pop("search", UNSET))

        put_web_config = cls(
            allowed_domains=allowed_domains,
            blocked_domains=blocked_domains,
            enabled=enabled,
            fetch=fetch,
            search=search,
        )

        return put_web_config
