from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="LimitsView")


@_attrs_define
class LimitsView:
    """A publication's limits as returned.

    Attributes:
        ip_messages_per_minute (int):
        max_concurrent_turns (int):
        max_message_chars (int):
        max_output_tokens (int):
        visitor_messages_per_minute (int):
        daily_token_budget (int | None | Unset):
    """

    ip_messages_per_minute: int
    max_concurrent_turns: int
    max_message_chars: int
    max_output_tokens: int
    visitor_messages_per_minute: int
    daily_token_budget: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        ip_messages_per_minute = self.ip_messages_per_minute

        max_concurrent_turns = self.max_concurrent_turns

        max_message_chars = self.max_message_chars

        max_output_tokens = self.max_output_tokens

        visitor_messages_per_minute = self.visitor_messages_per_minute

        daily_token_budget: int | None | Unset
        if isinstance(self.daily_token_budget, Unset):
            daily_token_budget = UNSET
        else:
            daily_token_budget = self.daily_token_budget

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ip_messages_per_minute": ip_messages_per_minute,
                "max_concurrent_turns": max_concurrent_turns,
                "max_message_chars": max_message_chars,
                "max_output_tokens": max_output_tokens,
                "visitor_messages_per_minute": visitor_messages_per_minute,
            }
        )
        if daily_token_budget is not UNSET:
            field_dict["daily_token_budget"] = daily_token_budget

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        ip_messages_per_minute = d.pop("ip_messages_per_minute")

        max_concurrent_turns = d.pop("max_concurrent_turns")

        max_message_chars = d.pop("max_message_chars")

        max_output_tokens = d.pop("max_output_tokens")

        visitor_messages_per_minute = d.pop("visitor_messages_per_minute")

        def _parse_daily_token_budget(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        daily_token_budget = _parse_daily_token_budget(d.pop("daily_token_budget", UNSET))

        limits_view = cls(
            ip_messages_per_minute=ip_messages_per_minute,
            max_concurrent_turns=max_concurrent_turns,
            max_message_chars=max_message_chars,
            max_output_tokens=max_output_tokens,
            visitor_messages_per_minute=visitor_messages_per_minute,
            daily_token_budget=daily_token_budget,
        )

        limits_view.additional_properties = d
        return limits_view

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
