from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="UsageToday")


@_attrs_define
class UsageToday:
    """Today's (UTC) tokens of a publication against its budget.

    Attributes:
        reserved (int): Held by its running turns.
        resets_at (str): The next UTC midnight.
        tokens (int): Spent by its visitors' calls today (every token kind).
        budget (int | None | Unset): `limits.daily_token_budget`; null: none.
    """

    reserved: int
    resets_at: str
    tokens: int
    budget: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        reserved = self.reserved

        resets_at = self.resets_at

        tokens = self.tokens

        budget: int | None | Unset
        if isinstance(self.budget, Unset):
            budget = UNSET
        else:
            budget = self.budget

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "reserved": reserved,
                "resets_at": resets_at,
                "tokens": tokens,
            }
        )
        if budget is not UNSET:
            field_dict["budget"] = budget

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        reserved = d.pop("reserved")

        resets_at = d.pop("resets_at")

        tokens = d.pop("tokens")

        def _parse_budget(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        budget = _parse_budget(d.pop("budget", UNSET))

        usage_today = cls(
            reserved=reserved,
            resets_at=resets_at,
            tokens=tokens,
            budget=budget,
        )

        usage_today.additional_properties = d
        return usage_today

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
