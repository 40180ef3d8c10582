from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="CacheBody")


@_attrs_define
class CacheBody:
    """`anthropicOverrides.cache`.

    Attributes:
        cache_tools (bool | None | Unset): A breakpoint on the last tool definition (default true).
        disabled (bool | None | Unset): No cache breakpoint at all.
        ttl (None | str | Unset): `"5m"` (default) or `"1h"`.
    """

    cache_tools: bool | None | Unset = UNSET
    disabled: bool | None | Unset = UNSET
    ttl: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        cache_tools: bool | None | Unset
        if isinstance(self.cache_tools, Unset):
            cache_tools = UNSET
        else:
            cache_tools = self.cache_tools

        disabled: bool | None | Unset
        if isinstance(self.disabled, Unset):
            disabled = UNSET
        else:
            disabled = self.disabled

        ttl: None | str | Unset
        if isinstance(self.ttl, Unset):
            ttl = UNSET
        else:
            ttl = self.ttl

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if cache_tools is not UNSET:
            field_dict["cacheTools"] = cache_tools
        if disabled is not UNSET:
            field_dict["disabled"] = disabled
        if ttl is not UNSET:
            field_dict["ttl"] = ttl

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_cache_tools(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        cache_tools = _parse_cache_tools(d.pop("cacheTools", UNSET))

        def _parse_disabled(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        disabled = _parse_disabled(d.pop("disabled", UNSET))

        def _parse_ttl(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ttl = _parse_ttl(d.pop("ttl", UNSET))

        cache_body = cls(
            cache_tools=cache_tools,
            disabled=disabled,
            ttl=ttl,
        )

        return cache_body
