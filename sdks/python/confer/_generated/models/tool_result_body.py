from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

T = TypeVar("T", bound="ToolResultBody")


@_attrs_define
class ToolResultBody:
    """A client's answer to a tool call: `{toolCallId, output}`.

    Attributes:
        output (Any): A string, or any JSON value (sent to the model as its JSON text).
        tool_call_id (str):
    """

    output: Any
    tool_call_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        output = self.output

        tool_call_id = self.tool_call_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "output": output,
                "toolCallId": tool_call_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        output = d.pop("output")

        tool_call_id = d.pop("toolCallId")

        tool_result_body = cls(
            output=output,
            tool_call_id=tool_call_id,
        )

        tool_result_body.additional_properties = d
        return tool_result_body

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
