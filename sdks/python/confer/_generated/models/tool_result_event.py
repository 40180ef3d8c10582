from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tool_result_event_result import ToolResultEventResult


T = TypeVar("T", bound="ToolResultEvent")


@_attrs_define
class ToolResultEvent:
    """A server-side tool call's result (`isError` only when true).

    Attributes:
        result (ToolResultEventResult):
        tool_call_id (str):
        tool_name (str):
        is_error (bool | None | Unset):
    """

    result: ToolResultEventResult
    tool_call_id: str
    tool_name: str
    is_error: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        result = self.result.to_dict()

        tool_call_id = self.tool_call_id

        tool_name = self.tool_name

        is_error: bool | None | Unset
        if isinstance(self.is_error, Unset):
            is_error = UNSET
        else:
            is_error = self.is_error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "result": result,
                "tool_call_id": tool_call_id,
                "tool_name": tool_name,
            }
        )
        if is_error is not UNSET:
            field_dict["isError"] = is_error

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.tool_result_event_result import ToolResultEventResult

        d = dict(src_dict)
        result = ToolResultEventResult.from_dict(d.pop("result"))

        tool_call_id = d.pop("tool_call_id")

        tool_name = d.pop("tool_name")

        def _parse_is_error(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        is_error = _parse_is_error(d.pop("isError", UNSET))

        tool_result_event = cls(
            result=result,
            tool_call_id=tool_call_id,
            tool_name=tool_name,
            is_error=is_error,
        )

        tool_result_event.additional_properties = d
        return tool_result_event

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
