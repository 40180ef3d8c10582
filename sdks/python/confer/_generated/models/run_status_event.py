from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.run_status import RunStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.run_error import RunError


T = TypeVar("T", bound="RunStatusEvent")


@_attrs_define
class RunStatusEvent:
    """The run's status changed (no id).

    Attributes:
        status (RunStatus): A run's state (`runners.md` Runs §2).
        status_reason (None | str):
        error (RunError | Unset): A run's error.
        limit (str | Unset): The budget limit hit (`max_steps`…), when paused by one.
        output (Any | Unset): The run's output, once it has one.
    """

    status: RunStatus
    status_reason: None | str
    error: RunError | Unset = UNSET
    limit: str | Unset = UNSET
    output: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        status = self.status.value

        status_reason: None | str
        status_reason = self.status_reason

        error: dict[str, Any] | Unset = UNSET
        if not isinstance(self.error, Unset):
            error = self.error.to_dict()

        limit = self.limit

        output = self.output

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
                "statusReason": status_reason,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error
        if limit is not UNSET:
            field_dict["limit"] = limit
        if output is not UNSET:
            field_dict["output"] = output

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.run_error import RunError

        d = dict(src_dict)
        status = RunStatus(d.pop("status"))

        def _parse_status_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        status_reason = _parse_status_reason(d.pop("statusReason"))

        _error = d.pop("error", UNSET)
        error: RunError | Unset
        if isinstance(_error, Unset):
            error = UNSET
        else:
            error = RunError.from_dict(_error)

        limit = d.pop("limit", UNSET)

        output = d.pop("output", UNSET)

        run_status_event = cls(
            status=status,
            status_reason=status_reason,
            error=error,
            limit=limit,
            output=output,
        )

        run_status_event.additional_properties = d
        return run_status_event

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
