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
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.recent_firing import RecentFiring
    from ..models.task_action_type_0 import TaskActionType0
    from ..models.task_action_type_1 import TaskActionType1


T = TypeVar("T", bound="ScheduledTask")


@_attrs_define
class ScheduledTask:
    """A scheduled task of an agent, as stored and answered.

    Attributes:
        action (TaskActionType0 | TaskActionType1): What a task does at each slot.
        agent_id (UUID):
        catch_up_max (int):
        created_at (datetime.datetime):
        cron (str):
        enabled (bool):
        id (UUID):
        missed (Missed): What happens to slots older than the grace.
        name (str):
        org_id (UUID):
        overlap (Overlap): What a slot does while an earlier firing is unfinished.
        recent (list[RecentFiring]): The newest firings and skips, newest first.
        timezone (str):
        updated_at (datetime.datetime):
        grace_secs (int | None | Unset): `None`: half the gap to the next slot, 5 s to 1 h.
        next_fire_at (datetime.datetime | None | Unset): The first unfired slot; `None` while disabled (or with no slot
            left).
    """

    action: TaskActionType0 | TaskActionType1
    agent_id: UUID
    catch_up_max: int
    created_at: datetime.datetime
    cron: str
    enabled: bool
    id: UUID
    missed: Missed
    name: str
    org_id: UUID
    overlap: Overlap
    recent: list[RecentFiring]
    timezone: str
    updated_at: datetime.datetime
    grace_secs: int | None | Unset = UNSET
    next_fire_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.task_action_type_0 import TaskActionType0

        action: dict[str, Any]
        if isinstance(self.action, TaskActionType0):
            action = self.action.to_dict()
        else:
            action = self.action.to_dict()

        agent_id = str(self.agent_id)

        catch_up_max = self.catch_up_max

        created_at = self.created_at.isoformat()

        cron = self.cron

        enabled = self.enabled

        id = str(self.id)

        missed = self.missed.value

        name = self.name

        org_id = str(self.org_id)

        overlap = self.overlap.value

        recent = []
        for recent_item_data in self.recent:
            recent_item = recent_item_data.to_dict()
            recent.append(recent_item)

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
                "action": action,
                "agent_id": agent_id,
                "catch_up_max": catch_up_max,
                "created_at": created_at,
                "cron": cron,
                "enabled": enabled,
                "id": id,
                "missed": missed,
                "name": name,
                "org_id": org_id,
                "overlap": overlap,
                "recent": recent,
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
        from ..models.task_action_type_0 import TaskActionType0
        from ..models.task_action_type_1 import TaskActionType1

        d = dict(src_dict)

        def _parse_action(data: object) -> TaskActionType0 | TaskActionType1:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_task_action_type_0 = TaskActionType0.from_dict(data)

                return componentsschemas_task_action_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_task_action_type_1 = TaskActionType1.from_dict(data)

            return componentsschemas_task_action_type_1

        action = _parse_action(d.pop("action"))

        agent_id = UUID(d.pop("agent_id"))

        catch_up_max = d.pop("catch_up_max")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        cron = d.pop("cron")

        enabled = d.pop("enabled")

        id = UUID(d.pop("id"))

        missed = Missed(d.pop("missed"))

        name = d.pop("name")

        org_id = UUID(d.pop("org_id"))

        overlap = Overlap(d.pop("overlap"))

        recent = []
        _recent = d.pop("recent")
        for recent_item_data in _recent:
            recent_item = RecentFiring.from_dict(recent_item_data)

            recent.append(recent_item)

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

        scheduled_task = cls(
            action=action,
            agent_id=agent_id,
            catch_up_max=catch_up_max,
            created_at=created_at,
            cron=cron,
            enabled=enabled,
            id=id,
            missed=missed,
            name=name,
            org_id=org_id,
            overlap=overlap,
            recent=recent,
            timezone=timezone,
            updated_at=updated_at,
            grace_secs=grace_secs,
            next_fire_at=next_fire_at,
        )

        scheduled_task.additional_properties = d
        return scheduled_task

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
