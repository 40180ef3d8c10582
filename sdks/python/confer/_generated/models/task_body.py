from __future__ import annotations

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
    from ..models.action_body_type_0 import ActionBodyType0
    from ..models.action_body_type_1 import ActionBodyType1


T = TypeVar("T", bound="TaskBody")


@_attrs_define
class TaskBody:
    """One item of `PUT /api/agents/{id}/scheduled-tasks` (camelCase).

    Attributes:
        action (ActionBodyType0 | ActionBodyType1): A task's action in a body (camelCase).
        cron (str): 5 fields, or 6 with seconds first (`croner`: `L W #` too).
        name (str):
        catch_up_max (int | None | Unset): 1–100 (10).
        enabled (bool | None | Unset): `true` by default.
        grace_secs (int | None | Unset): 5–3,600; absent: half the gap to the next slot.
        id (None | Unset | UUID): A stored task's id (updated); absent: a new task.
        missed (Missed | None | Unset):
        overlap (None | Overlap | Unset):
        timezone (None | str | Unset): IANA (`UTC` by default).
    """

    action: ActionBodyType0 | ActionBodyType1
    cron: str
    name: str
    catch_up_max: int | None | Unset = UNSET
    enabled: bool | None | Unset = UNSET
    grace_secs: int | None | Unset = UNSET
    id: None | Unset | UUID = UNSET
    missed: Missed | None | Unset = UNSET
    overlap: None | Overlap | Unset = UNSET
    timezone: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.action_body_type_0 import ActionBodyType0

        action: dict[str, Any]
        if isinstance(self.action, ActionBodyType0):
            action = self.action.to_dict()
        else:
            action = self.action.to_dict()

        cron = self.cron

        name = self.name

        catch_up_max: int | None | Unset
        if isinstance(self.catch_up_max, Unset):
            catch_up_max = UNSET
        else:
            catch_up_max = self.catch_up_max

        enabled: bool | None | Unset
        if isinstance(self.enabled, Unset):
            enabled = UNSET
        else:
            enabled = self.enabled

        grace_secs: int | None | Unset
        if isinstance(self.grace_secs, Unset):
            grace_secs = UNSET
        else:
            grace_secs = self.grace_secs

        id: None | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        elif isinstance(self.id, UUID):
            id = str(self.id)
        else:
            id = self.id

        missed: None | str | Unset
        if isinstance(self.missed, Unset):
            missed = UNSET
        elif isinstance(self.missed, Missed):
            missed = self.missed.value
        else:
            missed = self.missed

        overlap: None | str | Unset
        if isinstance(self.overlap, Unset):
            overlap = UNSET
        elif isinstance(self.overlap, Overlap):
            overlap = self.overlap.value
        else:
            overlap = self.overlap

        timezone: None | str | Unset
        if isinstance(self.timezone, Unset):
            timezone = UNSET
        else:
            timezone = self.timezone

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "action": action,
                "cron": cron,
                "name": name,
            }
        )
        if catch_up_max is not UNSET:
            field_dict["catchUpMax"] = catch_up_max
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if grace_secs is not UNSET:
            field_dict["graceSecs"] = grace_secs
        if id is not UNSET:
            field_dict["id"] = id
        if missed is not UNSET:
            field_dict["missed"] = missed
        if overlap is not UNSET:
            field_dict["overlap"] = overlap
        if timezone is not UNSET:
            field_dict["timezone"] = timezone

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.action_body_type_0 import ActionBodyType0
        from ..models.action_body_type_1 import ActionBodyType1

        d = dict(src_dict)

        def _parse_action(data: object) -> ActionBodyType0 | ActionBodyType1:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_action_body_type_0 = ActionBodyType0.from_dict(data)

                return componentsschemas_action_body_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_action_body_type_1 = ActionBodyType1.from_dict(data)

            return componentsschemas_action_body_type_1

        action = _parse_action(d.pop("action"))

        cron = d.pop("cron")

        name = d.pop("name")

        def _parse_catch_up_max(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        catch_up_max = _parse_catch_up_max(d.pop("catchUpMax", UNSET))

        def _parse_enabled(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        enabled = _parse_enabled(d.pop("enabled", UNSET))

        def _parse_grace_secs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        grace_secs = _parse_grace_secs(d.pop("graceSecs", UNSET))

        def _parse_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                id_type_0 = UUID(data)

                return id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        id = _parse_id(d.pop("id", UNSET))

        def _parse_missed(data: object) -> Missed | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                missed_type_0 = Missed(data)

                return missed_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Missed | None | Unset, data)

        missed = _parse_missed(d.pop("missed", UNSET))

        def _parse_overlap(data: object) -> None | Overlap | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                overlap_type_0 = Overlap(data)

                return overlap_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Overlap | Unset, data)

        overlap = _parse_overlap(d.pop("overlap", UNSET))

        def _parse_timezone(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        timezone = _parse_timezone(d.pop("timezone", UNSET))

        task_body = cls(
            action=action,
            cron=cron,
            name=name,
            catch_up_max=catch_up_max,
            enabled=enabled,
            grace_secs=grace_secs,
            id=id,
            missed=missed,
            overlap=overlap,
            timezone=timezone,
        )

        task_body.additional_properties = d
        return task_body

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
