from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.today import Today


T = TypeVar("T", bound="BudgetView")


@_attrs_define
class BudgetView:
    """A budget (`GET/PUT …/budget`), with today's spend.

    Attributes:
        runner_id (UUID):
        today (Today): The runner's spend of the current UTC day.
        daily_cost_usd (float | None | Unset):
        max_cost_usd (float | None | Unset):
        max_duration_secs (int | None | Unset):
        max_steps (int | None | Unset):
        max_tokens (int | None | Unset):
    """

    runner_id: UUID
    today: Today
    daily_cost_usd: float | None | Unset = UNSET
    max_cost_usd: float | None | Unset = UNSET
    max_duration_secs: int | None | Unset = UNSET
    max_steps: int | None | Unset = UNSET
    max_tokens: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        runner_id = str(self.runner_id)

        today = self.today.to_dict()

        daily_cost_usd: float | None | Unset
        if isinstance(self.daily_cost_usd, Unset):
            daily_cost_usd = UNSET
        else:
            daily_cost_usd = self.daily_cost_usd

        max_cost_usd: float | None | Unset
        if isinstance(self.max_cost_usd, Unset):
            max_cost_usd = UNSET
        else:
            max_cost_usd = self.max_cost_usd

        max_duration_secs: int | None | Unset
        if isinstance(self.max_duration_secs, Unset):
            max_duration_secs = UNSET
        else:
            max_duration_secs = self.max_duration_secs

        max_steps: int | None | Unset
        if isinstance(self.max_steps, Unset):
            max_steps = UNSET
        else:
            max_steps = self.max_steps

        max_tokens: int | None | Unset
        if isinstance(self.max_tokens, Unset):
            max_tokens = UNSET
        else:
            max_tokens = self.max_tokens

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "runner_id": runner_id,
                "today": today,
            }
        )
        if daily_cost_usd is not UNSET:
            field_dict["daily_cost_usd"] = daily_cost_usd
        if max_cost_usd is not UNSET:
            field_dict["max_cost_usd"] = max_cost_usd
        if max_duration_secs is not UNSET:
            field_dict["max_duration_secs"] = max_duration_secs
        if max_steps is not UNSET:
            field_dict["max_steps"] = max_steps
        if max_tokens is not UNSET:
            field_dict["max_tokens"] = max_tokens

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.today import Today

        d = dict(src_dict)
        runner_id = UUID(d.pop("runner_id"))

        today = Today.from_dict(d.pop("today"))

        def _parse_daily_cost_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        daily_cost_usd = _parse_daily_cost_usd(d.pop("daily_cost_usd", UNSET))

        def _parse_max_cost_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        max_cost_usd = _parse_max_cost_usd(d.pop("max_cost_usd", UNSET))

        def _parse_max_duration_secs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_duration_secs = _parse_max_duration_secs(d.pop("max_duration_secs", UNSET))

        def _parse_max_steps(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_steps = _parse_max_steps(d.pop("max_steps", UNSET))

        def _parse_max_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_tokens = _parse_max_tokens(d.pop("max_tokens", UNSET))

        budget_view = cls(
            runner_id=runner_id,
            today=today,
            daily_cost_usd=daily_cost_usd,
            max_cost_usd=max_cost_usd,
            max_duration_secs=max_duration_secs,
            max_steps=max_steps,
            max_tokens=max_tokens,
        )

        budget_view.additional_properties = d
        return budget_view

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
