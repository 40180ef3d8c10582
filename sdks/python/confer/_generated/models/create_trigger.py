from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.missed import Missed
from ..models.overlap import Overlap
from ..models.trigger_kind import TriggerKind
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.schedule_draft_input_type_0 import ScheduleDraftInputType0


T = TypeVar("T", bound="CreateTrigger")


@_attrs_define
class CreateTrigger:
    """`POST …/triggers` body.

    Attributes:
        kind (TriggerKind): What started a run.
        idempotency_header (None | str | Unset):
        max_body_bytes (int | None | Unset):
        rate_limit_per_min (int | None | Unset):
        require_signature (bool | None | Unset):
        rotation_grace_secs (int | None | Unset):
        catch_up_max (int | None | Unset):
        cron (None | str | Unset): Required for a new schedule trigger: 5 fields, or 6 with seconds.
        grace_secs (int | None | Unset):
        input_ (None | ScheduleDraftInputType0 | Unset): The runs' input (`{}`), valid for the runner's input schema.
        missed (Missed | None | Unset):
        name (None | str | Unset): 1–100 characters (the runner's name by default).
        overlap (None | Overlap | Unset):
        timezone (None | str | Unset): IANA (`UTC`).
        allowed_origins (list[str] | None | Unset): Who may frame the page; `null`: the org's `allowedEmbedDomains`.
        daily_runs (int | None | Unset): Runs a UTC day (1–100,000; 200).
        public_tools (list[str] | None | Unset): The only server-side tools its runs are offered.
        title (None | str | Unset): The page's heading (default: the runner's name).
        enabled (bool | None | Unset):
    """

    kind: TriggerKind
    idempotency_header: None | str | Unset = UNSET
    max_body_bytes: int | None | Unset = UNSET
    rate_limit_per_min: int | None | Unset = UNSET
    require_signature: bool | None | Unset = UNSET
    rotation_grace_secs: int | None | Unset = UNSET
    catch_up_max: int | None | Unset = UNSET
    cron: None | str | Unset = UNSET
    grace_secs: int | None | Unset = UNSET
    input_: None | ScheduleDraftInputType0 | Unset = UNSET
    missed: Missed | None | Unset = UNSET
    name: None | str | Unset = UNSET
    overlap: None | Overlap | Unset = UNSET
    timezone: None | str | Unset = UNSET
    allowed_origins: list[str] | None | Unset = UNSET
    daily_runs: int | None | Unset = UNSET
    public_tools: list[str] | None | Unset = UNSET
    title: None | str | Unset = UNSET
    enabled: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.schedule_draft_input_type_0 import ScheduleDraftInputType0

        kind = self.kind.value

        idempotency_header: None | str | Unset
        if isinstance(self.idempotency_header, Unset):
            idempotency_header = UNSET
        else:
            idempotency_header = self.idempotency_header

        max_body_bytes: int | None | Unset
        if isinstance(self.max_body_bytes, Unset):
            max_body_bytes = UNSET
        else:
            max_body_bytes = self.max_body_bytes

        rate_limit_per_min: int | None | Unset
        if isinstance(self.rate_limit_per_min, Unset):
            rate_limit_per_min = UNSET
        else:
            rate_limit_per_min = self.rate_limit_per_min

        require_signature: bool | None | Unset
        if isinstance(self.require_signature, Unset):
            require_signature = UNSET
        else:
            require_signature = self.require_signature

        rotation_grace_secs: int | None | Unset
        if isinstance(self.rotation_grace_secs, Unset):
            rotation_grace_secs = UNSET
        else:
            rotation_grace_secs = self.rotation_grace_secs

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

        allowed_origins: list[str] | None | Unset
        if isinstance(self.allowed_origins, Unset):
            allowed_origins = UNSET
        elif isinstance(self.allowed_origins, list):
            allowed_origins = self.allowed_origins

        else:
            allowed_origins = self.allowed_origins

        daily_runs: int | None | Unset
        if isinstance(self.daily_runs, Unset):
            daily_runs = UNSET
        else:
            daily_runs = self.daily_runs

        public_tools: list[str] | None | Unset
        if isinstance(self.public_tools, Unset):
            public_tools = UNSET
        elif isinstance(self.public_tools, list):
            public_tools = self.public_tools

        else:
            public_tools = self.public_tools

        title: None | str | Unset
        if isinstance(self.title, Unset):
            title = UNSET
        else:
            title = self.title

        enabled: bool | None | Unset
        if isinstance(self.enabled, Unset):
            enabled = UNSET
        else:
            enabled = self.enabled

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kind": kind,
            }
        )
        if idempotency_header is not UNSET:
            field_dict["idempotencyHeader"] = idempotency_header
        if max_body_bytes is not UNSET:
            field_dict["maxBodyBytes"] = max_body_bytes
        if rate_limit_per_min is not UNSET:
            field_dict["rateLimitPerMin"] = rate_limit_per_min
        if require_signature is not UNSET:
            field_dict["requireSignature"] = require_signature
        if rotation_grace_secs is not UNSET:
            field_dict["rotationGraceSecs"] = rotation_grace_secs
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
        if allowed_origins is not UNSET:
            field_dict["allowedOrigins"] = allowed_origins
        if daily_runs is not UNSET:
            field_dict["dailyRuns"] = daily_runs
        if public_tools is not UNSET:
            field_dict["publicTools"] = public_tools
        if title is not UNSET:
            field_dict["title"] = title
        if enabled is not UNSET:
            field_dict["enabled"] = enabled

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.schedule_draft_input_type_0 import ScheduleDraftInputType0

        d = dict(src_dict)
        kind = TriggerKind(d.pop("kind"))

        def _parse_idempotency_header(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        idempotency_header = _parse_idempotency_header(d.pop("idempotencyHeader", UNSET))

        def _parse_max_body_bytes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_body_bytes = _parse_max_body_bytes(d.pop("maxBodyBytes", UNSET))

        def _parse_rate_limit_per_min(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        rate_limit_per_min = _parse_rate_limit_per_min(d.pop("rateLimitPerMin", UNSET))

        def _parse_require_signature(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        require_signature = _parse_require_signature(d.pop("requireSignature", UNSET))

        def _parse_rotation_grace_secs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        rotation_grace_secs = _parse_rotation_grace_secs(d.pop("rotationGraceSecs", UNSET))

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

        def _parse_allowed_origins(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                allowed_origins_type_0 = cast(list[str], data)

                return allowed_origins_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        allowed_origins = _parse_allowed_origins(d.pop("allowedOrigins", UNSET))

        def _parse_daily_runs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        daily_runs = _parse_daily_runs(d.pop("dailyRuns", UNSET))

        def _parse_public_tools(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                public_tools_type_0 = cast(list[str], data)

                return public_tools_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        public_tools = _parse_public_tools(d.pop("publicTools", UNSET))

        def _parse_title(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        title = _parse_title(d.pop("title", UNSET))

        def _parse_enabled(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        enabled = _parse_enabled(d.pop("enabled", UNSET))

        create_trigger = cls(
            kind=kind,
            idempotency_header=idempotency_header,
            max_body_bytes=max_body_bytes,
            rate_limit_per_min=rate_limit_per_min,
            require_signature=require_signature,
            rotation_grace_secs=rotation_grace_secs,
            catch_up_max=catch_up_max,
            cron=cron,
            grace_secs=grace_secs,
            input_=input_,
            missed=missed,
            name=name,
            overlap=overlap,
            timezone=timezone,
            allowed_origins=allowed_origins,
            daily_runs=daily_runs,
            public_tools=public_tools,
            title=title,
            enabled=enabled,
        )

        create_trigger.additional_properties = d
        return create_trigger

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
