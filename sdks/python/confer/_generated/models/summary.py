from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="Summary")


@_attrs_define
class Summary:
    """`summary` of the answer.

    Attributes:
        cache_read_tokens (int):
        cache_write_tokens (int):
        errors (int):
        estimated_cost_usd (float):
        input_tokens (int):
        output_tokens (int):
        stopped (int):
        tool_calls (int):
        total_threads (int):
        total_turns (int):
        unique_users (int):
        avg_response_time_ms (float | None | Unset):
        avg_ttft_ms (float | None | Unset):
        p50_response_time_ms (float | None | Unset):
        p95_response_time_ms (float | None | Unset):
    """

    cache_read_tokens: int
    cache_write_tokens: int
    errors: int
    estimated_cost_usd: float
    input_tokens: int
    output_tokens: int
    stopped: int
    tool_calls: int
    total_threads: int
    total_turns: int
    unique_users: int
    avg_response_time_ms: float | None | Unset = UNSET
    avg_ttft_ms: float | None | Unset = UNSET
    p50_response_time_ms: float | None | Unset = UNSET
    p95_response_time_ms: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cache_read_tokens = self.cache_read_tokens

        cache_write_tokens = self.cache_write_tokens

        errors = self.errors

        estimated_cost_usd = self.estimated_cost_usd

        input_tokens = self.input_tokens

        output_tokens = self.output_tokens

        stopped = self.stopped

        tool_calls = self.tool_calls

        total_threads = self.total_threads

        total_turns = self.total_turns

        unique_users = self.unique_users

        avg_response_time_ms: float | None | Unset
        if isinstance(self.avg_response_time_ms, Unset):
            avg_response_time_ms = UNSET
        else:
            avg_response_time_ms = self.avg_response_time_ms

        avg_ttft_ms: float | None | Unset
        if isinstance(self.avg_ttft_ms, Unset):
            avg_ttft_ms = UNSET
        else:
            avg_ttft_ms = self.avg_ttft_ms

        p50_response_time_ms: float | None | Unset
        if isinstance(self.p50_response_time_ms, Unset):
            p50_response_time_ms = UNSET
        else:
            p50_response_time_ms = self.p50_response_time_ms

        p95_response_time_ms: float | None | Unset
        if isinstance(self.p95_response_time_ms, Unset):
            p95_response_time_ms = UNSET
        else:
            p95_response_time_ms = self.p95_response_time_ms

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cache_read_tokens": cache_read_tokens,
                "cache_write_tokens": cache_write_tokens,
                "errors": errors,
                "estimated_cost_usd": estimated_cost_usd,
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "stopped": stopped,
                "tool_calls": tool_calls,
                "total_threads": total_threads,
                "total_turns": total_turns,
                "unique_users": unique_users,
            }
        )
        if avg_response_time_ms is not UNSET:
            field_dict["avg_response_time_ms"] = avg_response_time_ms
        if avg_ttft_ms is not UNSET:
            field_dict["avg_ttft_ms"] = avg_ttft_ms
        if p50_response_time_ms is not UNSET:
            field_dict["p50_response_time_ms"] = p50_response_time_ms
        if p95_response_time_ms is not UNSET:
            field_dict["p95_response_time_ms"] = p95_response_time_ms

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        cache_read_tokens = d.pop("cache_read_tokens")

        cache_write_tokens = d.pop("cache_write_tokens")

        errors = d.pop("errors")

        estimated_cost_usd = d.pop("estimated_cost_usd")

        input_tokens = d.pop("input_tokens")

        output_tokens = d.pop("output_tokens")

        stopped = d.pop("stopped")

        tool_calls = d.pop("tool_calls")

        total_threads = d.pop("total_threads")

        total_turns = d.pop("total_turns")

        unique_users = d.pop("unique_users")

        def _parse_avg_response_time_ms(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        avg_response_time_ms = _parse_avg_response_time_ms(d.pop("avg_response_time_ms", UNSET))

        def _parse_avg_ttft_ms(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        avg_ttft_ms = _parse_avg_ttft_ms(d.pop("avg_ttft_ms", UNSET))

        def _parse_p50_response_time_ms(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        p50_response_time_ms = _parse_p50_response_time_ms(d.pop("p50_response_time_ms", UNSET))

        def _parse_p95_response_time_ms(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        p95_response_time_ms = _parse_p95_response_time_ms(d.pop("p95_response_time_ms", UNSET))

        summary = cls(
            cache_read_tokens=cache_read_tokens,
            cache_write_tokens=cache_write_tokens,
            errors=errors,
            estimated_cost_usd=estimated_cost_usd,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            stopped=stopped,
            tool_calls=tool_calls,
            total_threads=total_threads,
            total_turns=total_turns,
            unique_users=unique_users,
            avg_response_time_ms=avg_response_time_ms,
            avg_ttft_ms=avg_ttft_ms,
            p50_response_time_ms=p50_response_time_ms,
            p95_response_time_ms=p95_response_time_ms,
        )

        summary.additional_properties = d
        return summary

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
