from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.usage import Usage


T = TypeVar("T", bound="DoneEvent")


@_attrs_define
class DoneEvent:
    """The data of a `done` event (boxed in [`ThreadEvent`], as `meta`).

    Attributes:
        content (str):
        ok (bool):
        gap (bool | None | Unset): The stream fell behind the frames kept (`streams.md`).
        message_id (None | Unset | UUID):
        paused (None | str | Unset): `"compaction"`: the vendor compacted the context and paused; an
            empty send continues the answer (`compaction.md`).
        requires_action (bool | None | Unset):
        stopped (bool | None | Unset):
        usage (None | Unset | Usage):
    """

    content: str
    ok: bool
    gap: bool | None | Unset = UNSET
    message_id: None | Unset | UUID = UNSET
    paused: None | str | Unset = UNSET
    requires_action: bool | None | Unset = UNSET
    stopped: bool | None | Unset = UNSET
    usage: None | Unset | Usage = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.usage import Usage

        content = self.content

        ok = self.ok

        gap: bool | None | Unset
        if isinstance(self.gap, Unset):
            gap = UNSET
        else:
            gap = self.gap

        message_id: None | str | Unset
        if isinstance(self.message_id, Unset):
            message_id = UNSET
        elif isinstance(self.message_id, UUID):
            message_id = str(self.message_id)
        else:
            message_id = self.message_id

        paused: None | str | Unset
        if isinstance(self.paused, Unset):
            paused = UNSET
        else:
            paused = self.paused

        requires_action: bool | None | Unset
        if isinstance(self.requires_action, Unset):
            requires_action = UNSET
        else:
            requires_action = self.requires_action

        stopped: bool | None | Unset
        if isinstance(self.stopped, Unset):
            stopped = UNSET
        else:
            stopped = self.stopped

        usage: dict[str, Any] | None | Unset
        if isinstance(self.usage, Unset):
            usage = UNSET
        elif isinstance(self.usage, Usage):
            usage = self.usage.to_dict()
        else:
            usage = self.usage

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content": content,
                "ok": ok,
            }
        )
        if gap is not UNSET:
            field_dict["gap"] = gap
        if message_id is not UNSET:
            field_dict["messageId"] = message_id
        if paused is not UNSET:
            field_dict["paused"] = paused
        if requires_action is not UNSET:
            field_dict["requiresAction"] = requires_action
        if stopped is not UNSET:
            field_dict["stopped"] = stopped
        if usage is not UNSET:
            field_dict["usage"] = usage

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.usage import Usage

        d = dict(src_dict)
        content = d.pop("content")

        ok = d.pop("ok")

        def _parse_gap(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        gap = _parse_gap(d.pop("gap", UNSET))

        def _parse_message_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                message_id_type_0 = UUID(data)

                return message_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        message_id = _parse_message_id(d.pop("messageId", UNSET))

        def _parse_paused(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        paused = _parse_paused(d.pop("paused", UNSET))

        def _parse_requires_action(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        requires_action = _parse_requires_action(d.pop("requiresAction", UNSET))

        def _parse_stopped(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        stopped = _parse_stopped(d.pop("stopped", UNSET))

        def _parse_usage(data: object) -> None | Unset | Usage:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                usage_type_0 = Usage.from_dict(data)

                return usage_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | Usage, data)

        usage = _parse_usage(d.pop("usage", UNSET))

        done_event = cls(
            content=content,
            ok=ok,
            gap=gap,
            message_id=message_id,
            paused=paused,
            requires_action=requires_action,
            stopped=stopped,
            usage=usage,
        )

        done_event.additional_properties = d
        return done_event

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
