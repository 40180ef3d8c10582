from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="RecentFiring")


@_attrs_define
class RecentFiring:
    """One entry of a task's `recent`: a slot fired, or skipped and why.

    Attributes:
        at (datetime.datetime):
        outcome (str): `fired` or `skipped`.
        slot (datetime.datetime): The slot; for a `missed` entry, the newest slot it counts.
        count (int | None | Unset): The slots a `missed` entry counts.
        reason (None | str | Unset): Why it was skipped: `missed`, `overlap`, `queue_full`,
            `input_invalid`, `runner_deleted`, `thread_deleted`, or a refusal.
        run_id (None | Unset | UUID):
    """

    at: datetime.datetime
    outcome: str
    slot: datetime.datetime
    count: int | None | Unset = UNSET
    reason: None | str | Unset = UNSET
    run_id: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        at = self.at.isoformat()

        outcome = self.outcome

        slot = self.slot.isoformat()

        count: int | None | Unset
        if isinstance(self.count, Unset):
            count = UNSET
        else:
            count = self.count

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        run_id: None | str | Unset
        if isinstance(self.run_id, Unset):
            run_id = UNSET
        elif isinstance(self.run_id, UUID):
            run_id = str(self.run_id)
        else:
            run_id = self.run_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "at": at,
                "outcome": outcome,
                "slot": slot,
            }
        )
        if count is not UNSET:
            field_dict["count"] = count
        if reason is not UNSET:
            field_dict["reason"] = reason
        if run_id is not UNSET:
            field_dict["run_id"] = run_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))

        outcome = d.pop("outcome")

        slot = datetime.datetime.fromisoformat(d.pop("slot"))

        def _parse_count(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        count = _parse_count(d.pop("count", UNSET))

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        def _parse_run_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                run_id_type_0 = UUID(data)

                return run_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        run_id = _parse_run_id(d.pop("run_id", UNSET))

        recent_firing = cls(
            at=at,
            outcome=outcome,
            slot=slot,
            count=count,
            reason=reason,
            run_id=run_id,
        )

        recent_firing.additional_properties = d
        return recent_firing

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
