from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.context_block_type_6_type import ContextBlockType6Type
from ..types import UNSET, Unset

T = TypeVar("T", bound="ContextBlockType6")


@_attrs_define
class ContextBlockType6:
    """
    Attributes:
        output (str):
        type_ (ContextBlockType6Type):
        tool_call_id (None | str | Unset):
        turn (int | None | Unset):
    """

    output: str
    type_: ContextBlockType6Type
    tool_call_id: None | str | Unset = UNSET
    turn: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        output = self.output

        type_ = self.type_.value

        tool_call_id: None | str | Unset
        if isinstance(self.tool_call_id, Unset):
            tool_call_id = UNSET
        else:
            tool_call_id = self.tool_call_id

        turn: int | None | Unset
        if isinstance(self.turn, Unset):
            turn = UNSET
        else:
            turn = self.turn

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "output": output,
                "type": type_,
            }
        )
        if tool_call_id is not UNSET:
            field_dict["tool_call_id"] = tool_call_id
        if turn is not UNSET:
            field_dict["turn"] = turn

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        output = d.pop("output")

        type_ = ContextBlockType6Type(d.pop("type"))

        def _parse_tool_call_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tool_call_id = _parse_tool_call_id(d.pop("tool_call_id", UNSET))

        def _parse_turn(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        turn = _parse_turn(d.pop("turn", UNSET))

        context_block_type_6 = cls(
            output=output,
            type_=type_,
            tool_call_id=tool_call_id,
            turn=turn,
        )

        context_block_type_6.additional_properties = d
        return context_block_type_6

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
