from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="ThinkingBody")


@_attrs_define
class ThinkingBody:
    """`anthropicOverrides.thinking`.

    Attributes:
        enabled (bool):
        budget_tokens (int | None | Unset): 1,024 to 64,000 (default 10,000).
    """

    enabled: bool
    budget_tokens: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        enabled = self.enabled

        budget_tokens: int | None | Unset
        if isinstance(self.budget_tokens, Unset):
            budget_tokens = UNSET
        else:
            budget_tokens = self.budget_tokens

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "enabled": enabled,
            }
        )
        if budget_tokens is not UNSET:
            field_dict["budgetTokens"] = budget_tokens

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        enabled = d.pop("enabled")

        def _parse_budget_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        budget_tokens = _parse_budget_tokens(d.pop("budgetTokens", UNSET))

        thinking_body = cls(
            enabled=enabled,
            budget_tokens=budget_tokens,
        )

        return thinking_body
