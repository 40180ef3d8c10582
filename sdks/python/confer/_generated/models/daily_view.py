from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

T = TypeVar("T", bound="DailyView")


@_attrs_define
class DailyView:
    """One day of `daily`.

    Attributes:
        day (str):
        errors (int):
        estimated_cost_usd (float):
        input_tokens (int):
        output_tokens (int):
        tool_calls (int):
        total_threads (int):
        total_turns (int):
        unique_users (int):
    """

    day: str
    errors: int
    estimated_cost_usd: float
    input_tokens: int
    output_tokens: int
    tool_calls: int
    total_threads: int
    total_turns: int
    unique_users: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        day = self.day

        errors = self.errors

        estimated_cost_usd = self.estimated_cost_usd

        input_tokens = self.input_tokens

        output_tokens = self.output_tokens

        tool_calls = self.tool_calls

        total_threads = self.total_threads

        total_turns = self.total_turns

        unique_users = self.unique_users

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "day": day,
                "errors": errors,
                "estimated_cost_usd": estimated_cost_usd,
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "tool_calls": tool_calls,
                "total_threads": total_threads,
                "total_turns": total_turns,
                "unique_users": unique_users,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        day = d.pop("day")

        errors = d.pop("errors")

        estimated_cost_usd = d.pop("estimated_cost_usd")

        input_tokens = d.pop("input_tokens")

        output_tokens = d.pop("output_tokens")

        tool_calls = d.pop("tool_calls")

        total_threads = d.pop("total_threads")

        total_turns = d.pop("total_turns")

        unique_users = d.pop("unique_users")

        daily_view = cls(
            day=day,
            errors=errors,
            estimated_cost_usd=estimated_cost_usd,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            tool_calls=tool_calls,
            total_threads=total_threads,
            total_turns=total_turns,
            unique_users=unique_users,
        )

        daily_view.additional_properties = d
        return daily_view

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
