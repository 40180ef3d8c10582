from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="ToolCall")


@_attrs_define
class ToolCall:
    """A tool call the model made.

    Attributes:
        arguments (Any): The parsed JSON arguments; the model's raw text when it did not
            parse (then `arguments_error` says so).
        id (str): The vendor's ID, passed through unchanged.
        name (str):
        arguments_error (None | str | Unset): `"invalid JSON"` when the model's arguments did not parse.
    """

    arguments: Any
    id: str
    name: str
    arguments_error: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        arguments = self.arguments

        id = self.id

        name = self.name

        arguments_error: None | str | Unset
        if isinstance(self.arguments_error, Unset):
            arguments_error = UNSET
        else:
            arguments_error = self.arguments_error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "arguments": arguments,
                "id": id,
                "name": name,
            }
        )
        if arguments_error is not UNSET:
            field_dict["argumentsError"] = arguments_error

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        arguments = d.pop("arguments")

        id = d.pop("id")

        name = d.pop("name")

        def _parse_arguments_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        arguments_error = _parse_arguments_error(d.pop("argumentsError", UNSET))

        tool_call = cls(
            arguments=arguments,
            id=id,
            name=name,
            arguments_error=arguments_error,
        )

        tool_call.additional_properties = d
        return tool_call

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
