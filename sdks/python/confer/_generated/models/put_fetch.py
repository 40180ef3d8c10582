from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="PutFetch")


@_attrs_define
class PutFetch:
    """`PUT …/web`'s `fetch`.

    Attributes:
        enabled (bool | None | Unset):
        max_bytes (int | None | Unset): 64 KiB–10 MiB.
        max_chars (int | None | Unset): 1,000–200,000.
        respect_robots (bool | None | Unset):
        timeout_ms (int | None | Unset): 1,000–60,000.
    """

    enabled: bool | None | Unset = UNSET
    max_bytes: int | None | Unset = UNSET
    max_chars: int | None | Unset = UNSET
    respect_robots: bool | None | Unset = UNSET
    timeout_ms: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        enabled: bool | None | Unset
        if isinstance(self.enabled, Unset):
            enabled = UNSET
        else:
            enabled = self.enabled

        max_bytes: int | None | Unset
        if isinstance(self.max_bytes, Unset):
            max_bytes = UNSET
        else:
            max_bytes = self.max_bytes

        max_chars: int | None | Unset
        if isinstance(self.max_chars, Unset):
            max_chars = UNSET
        else:
            max_chars = self.max_chars

        respect_robots: bool | None | Unset
        if isinstance(self.respect_robots, Unset):
            respect_robots = UNSET
        else:
            respect_robots = self.respect_robots

        timeout_ms: int | None | Unset
        if isinstance(self.timeout_ms, Unset):
            timeout_ms = UNSET
        else:
            timeout_ms = self.timeout_ms

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if max_bytes is not UNSET:
            field_dict["maxBytes"] = max_bytes
        if max_chars is not UNSET:
            field_dict["maxChars"] = max_chars
        if respect_robots is not UNSET:
            field_dict["respectRobots"] = respect_robots
        if timeout_ms is not UNSET:
            field_dict["timeoutMs"] = timeout_ms

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_enabled(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        enabled = _parse_enabled(d.pop("enabled", UNSET))

        def _parse_max_bytes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_bytes = _parse_max_bytes(d.pop("maxBytes", UNSET))

        def _parse_max_chars(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_chars = _parse_max_chars(d.pop("maxChars", UNSET))

        def _parse_respect_robots(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        respect_robots = _parse_respect_robots(d.pop("respectRobots", UNSET))

        def _parse_timeout_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        timeout_ms = _parse_timeout_ms(d.pop("timeoutMs", UNSET))

        put_fetch = cls(
            enabled=enabled,
            max_bytes=max_bytes,
            max_chars=max_chars,
            respect_robots=respect_robots,
            timeout_ms=timeout_ms,
        )

        return put_fetch
