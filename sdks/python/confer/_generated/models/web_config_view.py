from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.fetch_settings import FetchSettings
    from ..models.search_view import SearchView


T = TypeVar("T", bound="WebConfigView")


@_attrs_define
class WebConfigView:
    """The configuration as answered (`agent_id` and `org_id` before it).

    Attributes:
        allowed_domains (list[str]):
        blocked_domains (list[str]):
        enabled (bool):
        fetch (FetchSettings): `web_fetch`'s settings.
        search (SearchView): A search's answer.
        updated_at (datetime.datetime | None | Unset):
    """

    allowed_domains: list[str]
    blocked_domains: list[str]
    enabled: bool
    fetch: FetchSettings
    search: SearchView
    updated_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        allowed_domains = self.allowed_domains

        blocked_domains = self.blocked_domains

        enabled = self.enabled

        fetch = self.fetch.to_dict()

        search = self.search.to_dict()

        updated_at: None | str | Unset
        if isinstance(self.updated_at, Unset):
            updated_at = UNSET
        elif isinstance(self.updated_at, datetime.datetime):
            updated_at = self.updated_at.isoformat()
        else:
            updated_at = self.updated_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "allowed_domains": allowed_domains,
                "blocked_domains": blocked_domains,
                "enabled": enabled,
                "fetch": fetch,
                "search": search,
            }
        )
        if updated_at is not UNSET:
            field_dict["updated_at"] = updated_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.fetch_settings import FetchSettings
        from ..models.search_view import SearchView

        d = dict(src_dict)
        allowed_domains = cast(list[str], d.pop("allowed_domains"))

        blocked_domains = cast(list[str], d.pop("blocked_domains"))

        enabled = d.pop("enabled")

        fetch = FetchSettings.from_dict(d.pop("fetch"))

        search = SearchView.from_dict(d.pop("search"))

        def _parse_updated_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                updated_at_type_0 = datetime.datetime.fromisoformat(data)

                return updated_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        updated_at = _parse_updated_at(d.pop("updated_at", UNSET))

        web_config_view = cls(
            allowed_domains=allowed_domains,
            blocked_domains=blocked_domains,
            enabled=enabled,
            fetch=fetch,
            search=search,
            updated_at=updated_at,
        )

        web_config_view.additional_properties = d
        return web_config_view

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
