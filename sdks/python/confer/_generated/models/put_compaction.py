from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="PutCompaction")


@_attrs_define
class PutCompaction:
    """`PUT` body: any subset of the fields.

    Attributes:
        enabled (bool | None | Unset):
        vendor_a_instructions (None | str | Unset):
        vendor_a_pause_after (bool | None | Unset):
        vendor_a_trigger_tokens (int | None | Unset):
        vendor_b_compact_threshold (int | None | Unset):
    """

    enabled: bool | None | Unset = UNSET
    vendor_a_instructions: None | str | Unset = UNSET
    vendor_a_pause_after: bool | None | Unset = UNSET
    vendor_a_trigger_tokens: int | None | Unset = UNSET
    vendor_b_compact_threshold: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        enabled: bool | None | Unset
        if isinstance(self.enabled, Unset):
            enabled = UNSET
        else:
            enabled = self.enabled

        vendor_a_instructions: None | str | Unset
        if isinstance(self.vendor_a_instructions, Unset):
            vendor_a_instructions = UNSET
        else:
            vendor_a_instructions = self.vendor_a_instructions

        vendor_a_pause_after: bool | None | Unset
        if isinstance(self.vendor_a_pause_after, Unset):
            vendor_a_pause_after = UNSET
        else:
            vendor_a_pause_after = self.vendor_a_pause_after

        vendor_a_trigger_tokens: int | None | Unset
        if isinstance(self.vendor_a_trigger_tokens, Unset):
            vendor_a_trigger_tokens = UNSET
        else:
            vendor_a_trigger_tokens = self.vendor_a_trigger_tokens

        vendor_b_compact_threshold: int | None | Unset
        if isinstance(self.vendor_b_compact_threshold, Unset):
            vendor_b_compact_threshold = UNSET
        else:
            vendor_b_compact_threshold = self.vendor_b_compact_threshold

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if vendor_a_instructions is not UNSET:
            field_dict["vendorAInstructions"] = vendor_a_instructions
        if vendor_a_pause_after is not UNSET:
            field_dict["vendorAPauseAfter"] = vendor_a_pause_after
        if vendor_a_trigger_tokens is not UNSET:
            field_dict["vendorATriggerTokens"] = vendor_a_trigger_tokens
        if vendor_b_compact_threshold is not UNSET:
            field_dict["vendorBCompactThreshold"] = vendor_b_compact_threshold

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

        def _parse_vendor_a_instructions(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        vendor_a_instructions = _parse_vendor_a_instructions(d.pop("vendorAInstructions", UNSET))

        def _parse_vendor_a_pause_after(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        vendor_a_pause_after = _parse_vendor_a_pause_after(d.pop("vendorAPauseAfter", UNSET))

        def _parse_vendor_a_trigger_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        vendor_a_trigger_tokens = _parse_vendor_a_trigger_tokens(
            d.pop("vendorATriggerTokens", UNSET)
        )

        def _parse_vendor_b_compact_threshold(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        vendor_b_compact_threshold = _parse_vendor_b_compact_threshold(
            d.pop("vendorBCompactThreshold", UNSET)
        )

        put_compaction = cls(
            enabled=enabled,
            vendor_a_instructions=vendor_a_instructions,
            vendor_a_pause_after=vendor_a_pause_after,
            vendor_a_trigger_tokens=vendor_a_trigger_tokens,
            vendor_b_compact_threshold=vendor_b_compact_threshold,
        )

        put_compaction.additional_properties = d
        return put_compaction

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
