from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="WatchingEvent")


@_attrs_define
class WatchingEvent:
    """First event of a `follow` stream (id `0.0`).

    Attributes:
        thread_id (UUID): A conversation thread on an agent.
        last_turn (int | None | Unset):
        running_turn (int | None | Unset):
    """

    thread_id: UUID
    last_turn: int | None | Unset = UNSET
    running_turn: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        thread_id = str(self.thread_id)

        last_turn: int | None | Unset
        if isinstance(self.last_turn, Unset):
            last_turn = UNSET
        else:
            last_turn = self.last_turn

        running_turn: int | None | Unset
        if isinstance(self.running_turn, Unset):
            running_turn = UNSET
        else:
            running_turn = self.running_turn

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "threadId": thread_id,
            }
        )
        if last_turn is not UNSET:
            field_dict["lastTurn"] = last_turn
        if running_turn is not UNSET:
            field_dict["runningTurn"] = running_turn

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        thread_id = UUID(d.pop("threadId"))

        def _parse_last_turn(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        last_turn = _parse_last_turn(d.pop("lastTurn", UNSET))

        def _parse_running_turn(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        running_turn = _parse_running_turn(d.pop("runningTurn", UNSET))

        watching_event = cls(
            thread_id=thread_id,
            last_turn=last_turn,
            running_turn=running_turn,
        )

        watching_event.additional_properties = d
        return watching_event

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
