from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.missed import Missed
from ..models.overlap import Overlap
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.schedule_draft_input_type_0 import ScheduleDraftInputType0


T = TypeVar("T", bound="ScheduleDraft")


@_attrs_define
class ScheduleDraft:
    """A schedule trigger's fields in a create or PATCH body (camelCase);
    absent ones keep their stored value (or default).

        Attributes:
            catch_up_max (int | None | Unset):
            cron (None | str | Unset): Required for a new schedule trigger: 5 fields, or 6 with seconds.
            grace_secs (int | None | Unset):
            input_ (None | ScheduleDraftInputType0 | Unset): The runs' input (`{}`), valid for the runner's input schema.
            missed (Missed | None | Unset):
            name (None | str | Unset): 1–100 characters (the runner's name by default).
            overlap (None | Overlap | Unset):
            timezone (None | str | Unset): IANA (`UTC`).
    """

    catch_up_max: int | None | Unset = UNSET
    cron: None | str | Unset = UNSET
    grace_secs: int | None | Unset = UNSET
    input_: None | ScheduleDraftInputType0 | Unset = UNSET
    missed: Missed | None | Unset = UNSET
    name: None | str | Unset = UNSET
    overlap: None | Overlap | Unset = UNSET
    timezone: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.schedule_draft_input_type_0 import ScheduleDraftInputType0

        catch_up_max: int | None | Unset
        if isinstance(self.catch_up_max, Unset):
            catch_up_max = UNSET
        else:
            catch_up_max = self.catch_up_max

        cron: None | str | Unset
        if isinstance(self.cron, Unset):
            cron = UNSET
        else:
            cron = self.cron

        grace_secs: int | None | Unset
        if isinstance(self.grace_secs, Unset):
            grace_secs = UNSET
        else:
            grace_secs = self.grace_secs

        input_: dict[str, Any] | None | Unset
        if isinstance(self.input_, Unset):
            input_ = UNSET
        elif isinstance(self.input_, ScheduleDraftInputType0):
            input_ = self.input_.to_dict()
        else:
            input_ = self.input_

        missed: None | str | Unset
        if isinstance(self.missed, Unset):
            missed = UNSET
        elif isinstance(self.missed, Missed):
            missed = self.missed.value
        else:
            missed = self.missed

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

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
        field_dict.update({})
        if catch_up_max is not UNSET:
            field_dict["catchUpMax"] = catch_up_max
        if cron is not UNSET:
            field_dict["cron"] = cron
        if grace_secs is not UNSET:
            field_dict["graceSecs"] = grace_secs
        if input_ is not UNSET:
            field_dict["input"] = input_
        if missed is not UNSET:
            field_dict["missed"] = missed
        if name is not UNSET:
            field_dict["name"] = name
        if overlap is not UNSET:
            field_dict["overlap"] = overlap
        if timezone is not UNSET:
            field_dict["timezone"] = timezone

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.schedule_draft_input_type_0 import ScheduleDraftInputType0

        d = dict(src_dict)

        def _parse_catch_up_max(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        catch_up_max = _parse_catch_up_max(d.pop("catchUpMax", UNSET))

        def _parse_cron(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        cron = _parse_cron(d.pop("cron", UNSET))

        def _parse_grace_secs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        grace_secs = _parse_grace_secs(d.pop("graceSecs", UNSET))

        def _parse_input_(data: object) -> None | ScheduleDraftInputType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                input_type_0 = ScheduleDraftInputType0.from_dict(data)

                return input_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ScheduleDraftInputType0 | Unset, data)

        input_ = _parse_input_(d.pop("input", UNSET))

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

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

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

        schedule_draft = cls(
            catch_up_max=catch_up_max,
            cron=cron,
            grace_secs=grace_secs,
            input_=input_,
            missed=missed,
            name=name,
            overlap=overlap,
            timezone=timezone,
        )

        schedule_draft.additional_properties = d
        return schedule_draft

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
