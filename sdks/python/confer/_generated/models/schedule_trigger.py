from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.missed import Missed
from ..models.overlap import Overlap
from ..models.trigger_kind import TriggerKind
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.recent_firing import RecentFiring


T = TypeVar("T", bound="ScheduleTrigger")


@_attrs_define
class ScheduleTrigger:
    """A schedule trigger as answered: the trigger's common fields and its
    task's.

        Attributes:
            catch_up_max (int):
            created_at (datetime.datetime):
            cron (str):
            enabled (bool):
            id (UUID): The trigger's id (its task's; runs name it in `trigger.id`).
            input_ (Any):
            kind (TriggerKind): What started a run.
            missed (Missed): What happens to slots older than the grace.
            name (str):
            org_id (UUID):
            overlap (Overlap): What a slot does while an earlier firing is unfinished.
            recent (list[RecentFiring]):
            runner_id (UUID):
            timezone (str):
            updated_at (datetime.datetime):
            grace_secs (int | None | Unset):
            next_fire_at (datetime.datetime | None | Unset):
    """

    catch_up_max: int
    created_at: datetime.datetime
    cron: str
    enabled: bool
    id: UUID
    input_: Any
    kind: TriggerKind
    missed: Missed
    name: str
    org_id: UUID
    overlap: Overlap
    recent: list[RecentFiring]
    runner_id: UUID
    timezone: str
    updated_at: datetime.datetime
    grace_secs: int | None | Unset = UNSET
    next_fire_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        catch_up_max = self.catch_up_max

        created_at = self.created_at.isoformat()

        cron = self.cron

        enabled = self.enabled

        id = str(self.id)

        input_ = self.input_

        kind = self.kind.value

        missed = self.missed.value

        name = self.name

        org_id = str(self.org_id)

        overlap = self.overlap.value

        recent = []
        for recent_item_data in self.recent:
            recent_item = recent_item_data.to_dict()
            recent.append(recent_item)

        runner_id = str(self.runner_id)

        timezone = self.timezone

        updated_at = self.updated_at.isoformat()

        grace_secs: int | None | Unset
        if isinstance(self.grace_secs, Unset):
            grace_secs = UNSET
        else:
            grace_secs = self.grace_secs

        next_fire_at: None | str | Unset
        if isinstance(self.next_fire_at, Unset):
            next_fire_at = UNSET
        elif isinstance(self.next_fire_at, datetime.datetime):
            next_fire_at = self.next_fire_at.isoformat()
        else:
            next_fire_at = self.next_fire_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "catch_up_max": catch_up_max,
                "created_at": created_at,
                "cron": cron,
                "enabled": enabled,
                "id": id,
                "input": input_,
                "kind": kind,
                "missed": missed,
                "name": name,
                "org_id": org_id,
                "overlap": overlap,
                "recent": recent,
                "runner_id": runner_id,
                "timezone": timezone,
                "updated_at": updated_at,
            }
        )
        if grace_secs is not UNSET:
            field_dict["grace_secs"] = grace_secs
        if next_fire_at is not UNSET:
            field_dict["next_fire_at"] = next_fire_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.recent_firing import RecentFiring

        d = dict(src_dict)
        catch_up_max = d.pop("catch_up_max")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        cron = d.pop("cron")

        enabled = d.pop("enabled")

        id = UUID(d.pop("id"))

        input_ = d.pop("input")

        kind = TriggerKind(d.pop("kind"))

        missed = Missed(d.pop("missed"))

        name = d.pop("name")

        org_id = UUID(d.pop("org_id"))

        overlap = Overlap(d.pop("overlap"))

        recent = []
        _recent = d.pop("recent")
        for recent_item_data in _recent:
            recent_item = RecentFiring.from_dict(recent_item_data)

            recent.append(recent_item)

        runner_id = UUID(d.pop("runner_id"))

        timezone = d.pop("timezone")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        def _parse_grace_secs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        grace_secs = _parse_grace_secs(d.pop("grace_secs", UNSET))

        def _parse_next_fire_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_fire_at_type_0 = datetime.datetime.fromisoformat(data)

                return next_fire_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        next_fire_at = _parse_next_fire_at(d.pop("next_fire_at", UNSET))

        schedule_trigger = cls(
            catch_up_max=catch_up_max,
            created_at=created_at,
            cron=cron,
            enabled=enabled,
            id=id,
            input_=input_,
            kind=kind,
            missed=missed,
            name=name,
            org_id=org_id,
            overlap=overlap,
            recent=recent,
            runner_id=runner_id,
            timezone=timezone,
            updated_at=updated_at,
            grace_secs=grace_secs,
            next_fire_at=next_fire_at,
        )

        schedule_trigger.additional_properties = d
        return schedule_trigger

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
