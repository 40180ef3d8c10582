from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.delivery_status import DeliveryStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="Delivery")


@_attrs_define
class Delivery:
    """One delivery, as the log answers it.

    Attributes:
        attempts (int):
        created_at (datetime.datetime):
        event (str):
        id (UUID): The `webhook-id`: `UUIDv5(run, "{event}.{occurrence}")`, the same
            on every attempt.
        run_id (UUID):
        status (DeliveryStatus): A delivery's state.
        last_error (None | str | Unset):
        last_status_code (int | None | Unset):
        next_attempt_at (datetime.datetime | None | Unset):
    """

    attempts: int
    created_at: datetime.datetime
    event: str
    id: UUID
    run_id: UUID
    status: DeliveryStatus
    last_error: None | str | Unset = UNSET
    last_status_code: int | None | Unset = UNSET
    next_attempt_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempts = self.attempts

        created_at = self.created_at.isoformat()

        event = self.event

        id = str(self.id)

        run_id = str(self.run_id)

        status = self.status.value

        last_error: None | str | Unset
        if isinstance(self.last_error, Unset):
            last_error = UNSET
        else:
            last_error = self.last_error

        last_status_code: int | None | Unset
        if isinstance(self.last_status_code, Unset):
            last_status_code = UNSET
        else:
            last_status_code = self.last_status_code

        next_attempt_at: None | str | Unset
        if isinstance(self.next_attempt_at, Unset):
            next_attempt_at = UNSET
        elif isinstance(self.next_attempt_at, datetime.datetime):
            next_attempt_at = self.next_attempt_at.isoformat()
        else:
            next_attempt_at = self.next_attempt_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempts": attempts,
                "created_at": created_at,
                "event": event,
                "id": id,
                "run_id": run_id,
                "status": status,
            }
        )
        if last_error is not UNSET:
            field_dict["last_error"] = last_error
        if last_status_code is not UNSET:
            field_dict["last_status_code"] = last_status_code
        if next_attempt_at is not UNSET:
            field_dict["next_attempt_at"] = next_attempt_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        attempts = d.pop("attempts")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        event = d.pop("event")

        id = UUID(d.pop("id"))

        run_id = UUID(d.pop("run_id"))

        status = DeliveryStatus(d.pop("status"))

        def _parse_last_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        last_error = _parse_last_error(d.pop("last_error", UNSET))

        def _parse_last_status_code(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        last_status_code = _parse_last_status_code(d.pop("last_status_code", UNSET))

        def _parse_next_attempt_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_attempt_at_type_0 = datetime.datetime.fromisoformat(data)

                return next_attempt_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        next_attempt_at = _parse_next_attempt_at(d.pop("next_attempt_at", UNSET))

        delivery = cls(
            attempts=attempts,
            created_at=created_at,
            event=event,
            id=id,
            run_id=run_id,
            status=status,
            last_error=last_error,
            last_status_code=last_status_code,
            next_attempt_at=next_attempt_at,
        )

        delivery.additional_properties = d
        return delivery

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
