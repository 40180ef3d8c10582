from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

T = TypeVar("T", bound="FetchSettings")


@_attrs_define
class FetchSettings:
    """`web_fetch`'s settings.

    Attributes:
        enabled (bool):
        max_bytes (int):
        max_chars (int):
        respect_robots (bool):
        timeout_ms (int):
    """

    enabled: bool
    max_bytes: int
    max_chars: int
    respect_robots: bool
    timeout_ms: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        enabled = self.enabled

        max_bytes = self.max_bytes

        max_chars = self.max_chars

        respect_robots = self.respect_robots

        timeout_ms = self.timeout_ms

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "enabled": enabled,
                "max_bytes": max_bytes,
                "max_chars": max_chars,
                "respect_robots": respect_robots,
                "timeout_ms": timeout_ms,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        enabled = d.pop("enabled")

        max_bytes = d.pop("max_bytes")

        max_chars = d.pop("max_chars")

        respect_robots = d.pop("respect_robots")

        timeout_ms = d.pop("timeout_ms")

        fetch_settings = cls(
            enabled=enabled,
            max_bytes=max_bytes,
            max_chars=max_chars,
            respect_robots=respect_robots,
            timeout_ms=timeout_ms,
        )

        fetch_settings.additional_properties = d
        return fetch_settings

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
