from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

T = TypeVar("T", bound="DelegatedUsage")


@_attrs_define
class DelegatedUsage:
    """All descendants' tokens and turns, as a parent's `done.usage.delegated`
    sums them.

        Attributes:
            cache_read_tokens (int):
            cache_write_tokens (int):
            input_tokens (int):
            output_tokens (int):
            turns (int):
    """

    cache_read_tokens: int
    cache_write_tokens: int
    input_tokens: int
    output_tokens: int
    turns: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cache_read_tokens = self.cache_read_tokens

        cache_write_tokens = self.cache_write_tokens

        input_tokens = self.input_tokens

        output_tokens = self.output_tokens

        turns = self.turns

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cacheReadTokens": cache_read_tokens,
                "cacheWriteTokens": cache_write_tokens,
                "inputTokens": input_tokens,
                "outputTokens": output_tokens,
                "turns": turns,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        cache_read_tokens = d.pop("cacheReadTokens")

        cache_write_tokens = d.pop("cacheWriteTokens")

        input_tokens = d.pop("inputTokens")

        output_tokens = d.pop("outputTokens")

        turns = d.pop("turns")

        delegated_usage = cls(
            cache_read_tokens=cache_read_tokens,
            cache_write_tokens=cache_write_tokens,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            turns=turns,
        )

        delegated_usage.additional_properties = d
        return delegated_usage

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
