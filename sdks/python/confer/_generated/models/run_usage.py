from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

T = TypeVar("T", bound="RunUsage")


@_attrs_define
class RunUsage:
    """What a run spent: the sum of its usage records, and its running time.

    Attributes:
        cost_usd (float):
        duration_ms (int):
        input_tokens (int):
        output_tokens (int):
        steps (int):
    """

    cost_usd: float
    duration_ms: int
    input_tokens: int
    output_tokens: int
    steps: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cost_usd = self.cost_usd

        duration_ms = self.duration_ms

        input_tokens = self.input_tokens

        output_tokens = self.output_tokens

        steps = self.steps

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cost_usd": cost_usd,
                "duration_ms": duration_ms,
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "steps": steps,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        cost_usd = d.pop("cost_usd")

        duration_ms = d.pop("duration_ms")

        input_tokens = d.pop("input_tokens")

        output_tokens = d.pop("output_tokens")

        steps = d.pop("steps")

        run_usage = cls(
            cost_usd=cost_usd,
            duration_ms=duration_ms,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            steps=steps,
        )

        run_usage.additional_properties = d
        return run_usage

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
