from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="ToolOutputEvent")


@_attrs_define
class ToolOutputEvent:
    """A piece of a running command's output (`tool_output`).

    Attributes:
        delta (str):
        stream (str): `stdout` or `stderr`.
        tool_call_id (str):
        tool_name (str):
        truncated (bool | None | Unset): Set on the last event of a call past its 64 KiB.
    """

    delta: str
    stream: str
    tool_call_id: str
    tool_name: str
    truncated: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        delta = self.delta

        stream = self.stream

        tool_call_id = self.tool_call_id

        tool_name = self.tool_name

        truncated: bool | None | Unset
        if isinstance(self.truncated, Unset):
            truncated = UNSET
        else:
            truncated = self.truncated

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "delta": delta,
                "stream": stream,
                "tool_call_id": tool_call_id,
                "tool_name": tool_name,
            }
        )
        if truncated is not UNSET:
            field_dict["truncated"] = truncated

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        delta = d.pop("delta")

        stream = d.pop("stream")

        tool_call_id = d.pop("tool_call_id")

        tool_name = d.pop("tool_name")

        def _parse_truncated(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        truncated = _parse_truncated(d.pop("truncated", UNSET))

        tool_output_event = cls(
            delta=delta,
            stream=stream,
            tool_call_id=tool_call_id,
            tool_name=tool_name,
            truncated=truncated,
        )

        tool_output_event.additional_properties = d
        return tool_output_event

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
