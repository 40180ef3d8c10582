from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="CompactionConfig")


@_attrs_define
class CompactionConfig:
    """Per-agent context compaction configuration.

    Attributes:
        enabled (bool):
        vendor_a_pause_after (bool): Pause after compaction so the client can inject content.
        vendor_a_trigger_tokens (int): Vendor A (native compaction) trigger, in input tokens.
        vendor_b_compact_threshold (int): Vendor B (summary fallback) threshold, in tokens.
        vendor_a_instructions (None | str | Unset): Replaces vendor A's built-in summarization prompt.
    """

    enabled: bool
    vendor_a_pause_after: bool
    vendor_a_trigger_tokens: int
    vendor_b_compact_threshold: int
    vendor_a_instructions: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        enabled = self.enabled

        vendor_a_pause_after = self.vendor_a_pause_after

        vendor_a_trigger_tokens = self.vendor_a_trigger_tokens

        vendor_b_compact_threshold = self.vendor_b_compact_threshold

        vendor_a_instructions: None | str | Unset
        if isinstance(self.vendor_a_instructions, Unset):
            vendor_a_instructions = UNSET
        else:
            vendor_a_instructions = self.vendor_a_instructions

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "enabled": enabled,
                "vendor_a_pause_after": vendor_a_pause_after,
                "vendor_a_trigger_tokens": vendor_a_trigger_tokens,
                "vendor_b_compact_threshold": vendor_b_compact_threshold,
            }
        )
        if vendor_a_instructions is not UNSET:
            field_dict["vendor_a_instructions"] = vendor_a_instructions

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        enabled = d.pop("enabled")

        vendor_a_pause_after = d.pop("vendor_a_pause_after")

        vendor_a_trigger_tokens = d.pop("vendor_a_trigger_tokens")

        vendor_b_compact_threshold = d.pop("vendor_b_compact_threshold")

        def _parse_vendor_a_instructions(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        vendor_a_instructions = _parse_vendor_a_instructions(d.pop("vendor_a_instructions", UNSET))

        compaction_config = cls(
            enabled=enabled,
            vendor_a_pause_after=vendor_a_pause_after,
            vendor_a_trigger_tokens=vendor_a_trigger_tokens,
            vendor_b_compact_threshold=vendor_b_compact_threshold,
            vendor_a_instructions=vendor_a_instructions,
        )

        compaction_config.additional_properties = d
        return compaction_config

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
