from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

T = TypeVar("T", bound="ModelView")


@_attrs_define
class ModelView:
    """One model of `by_model`.

    Attributes:
        estimated_cost_usd (float):
        input_tokens (int):
        model (str):
        output_tokens (int):
        total_turns (int):
    """

    estimated_cost_usd: float
    input_tokens: int
    model: str
    output_tokens: int
    total_turns: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        estimated_cost_usd = self.estimated_cost_usd

        input_tokens = self.input_tokens

        model = self.model

        output_tokens = self.output_tokens

        total_turns = self.total_turns

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "estimated_cost_usd": estimated_cost_usd,
                "input_tokens": input_tokens,
                "model": model,
                "output_tokens": output_tokens,
                "total_turns": total_turns,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        estimated_cost_usd = d.pop("estimated_cost_usd")

        input_tokens = d.pop("input_tokens")

        model = d.pop("model")

        output_tokens = d.pop("output_tokens")

        total_turns = d.pop("total_turns")

        model_view = cls(
            estimated_cost_usd=estimated_cost_usd,
            input_tokens=input_tokens,
            model=model,
            output_tokens=output_tokens,
            total_turns=total_turns,
        )

        model_view.additional_properties = d
        return model_view

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
