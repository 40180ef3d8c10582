from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.trigger_kind import TriggerKind
from ..types import UNSET, Unset

T = TypeVar("T", bound="RunTrigger")


@_attrs_define
class RunTrigger:
    """A run's trigger: its kind, the trigger's or task's id, and the slot.

    Attributes:
        kind (TriggerKind): What started a run.
        id (None | str | Unset):
        scheduled_for (datetime.datetime | None | Unset):
    """

    kind: TriggerKind
    id: None | str | Unset = UNSET
    scheduled_for: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        id: None | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        scheduled_for: None | str | Unset
        if isinstance(self.scheduled_for, Unset):
            scheduled_for = UNSET
        elif isinstance(self.scheduled_for, datetime.datetime):
            scheduled_for = self.scheduled_for.isoformat()
        else:
            scheduled_for = self.scheduled_for

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kind": kind,
            }
        )
        if id is not UNSET:
            field_dict["id"] = id
        if scheduled_for is not UNSET:
            field_dict["scheduled_for"] = scheduled_for

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kind = TriggerKind(d.pop("kind"))

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        def _parse_scheduled_for(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                scheduled_for_type_0 = datetime.datetime.fromisoformat(data)

                return scheduled_for_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        scheduled_for = _parse_scheduled_for(d.pop("scheduled_for", UNSET))

        run_trigger = cls(
            kind=kind,
            id=id,
            scheduled_for=scheduled_for,
        )

        run_trigger.additional_properties = d
        return run_trigger

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
