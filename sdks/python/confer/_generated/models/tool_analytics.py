from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="ToolAnalytics")


@_attrs_define
class ToolAnalytics:
    """One tool of `top_tools`.

    Attributes:
        call_count (int):
        error_count (int):
        tool_name (str):
        avg_duration_ms (float | None | Unset):
    """

    call_count: int
    error_count: int
    tool_name: str
    avg_duration_ms: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        call_count = self.call_count

        error_count = self.error_count

        tool_name = self.tool_name

        avg_duration_ms: float | None | Unset
        if isinstance(self.avg_duration_ms, Unset):
            avg_duration_ms = UNSET
        else:
            avg_duration_ms = self.avg_duration_ms

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "call_count": call_count,
                "error_count": error_count,
                "tool_name": tool_name,
            }
        )
        if avg_duration_ms is not UNSET:
            field_dict["avg_duration_ms"] = avg_duration_ms

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        call_count = d.pop("call_count")

        error_count = d.pop("error_count")

        tool_name = d.pop("tool_name")

        def _parse_avg_duration_ms(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        avg_duration_ms = _parse_avg_duration_ms(d.pop("avg_duration_ms", UNSET))

        tool_analytics = cls(
            call_count=call_count,
            error_count=error_count,
            tool_name=tool_name,
            avg_duration_ms=avg_duration_ms,
        )

        tool_analytics.additional_properties = d
        return tool_analytics

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
