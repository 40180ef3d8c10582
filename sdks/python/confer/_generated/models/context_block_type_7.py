from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.context_block_type_7_type import ContextBlockType7Type
from ..types import UNSET, Unset

T = TypeVar("T", bound="ContextBlockType7")


@_attrs_define
class ContextBlockType7:
    """
    Attributes:
        arguments (Any): The model's raw text when it was not valid JSON.
        id (str):
        name (str):
        type_ (ContextBlockType7Type):
        arguments_error (None | str | Unset): `"invalid JSON"` then.
        turn (int | None | Unset):
    """

    arguments: Any
    id: str
    name: str
    type_: ContextBlockType7Type
    arguments_error: None | str | Unset = UNSET
    turn: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        arguments = self.arguments

        id = self.id

        name = self.name

        type_ = self.type_.value

        arguments_error: None | str | Unset
        if isinstance(self.arguments_error, Unset):
            arguments_error = UNSET
        else:
            arguments_error = self.arguments_error

        turn: int | None | Unset
        if isinstance(self.turn, Unset):
            turn = UNSET
        else:
            turn = self.turn

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "arguments": arguments,
                "id": id,
                "name": name,
                "type": type_,
            }
        )
        if arguments_error is not UNSET:
            field_dict["arguments_error"] = arguments_error
        if turn is not UNSET:
            field_dict["turn"] = turn

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        arguments = d.pop("arguments")

        id = d.pop("id")

        name = d.pop("name")

        type_ = ContextBlockType7Type(d.pop("type"))

        def _parse_arguments_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        arguments_error = _parse_arguments_error(d.pop("arguments_error", UNSET))

        def _parse_turn(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        turn = _parse_turn(d.pop("turn", UNSET))

        context_block_type_7 = cls(
            arguments=arguments,
            id=id,
            name=name,
            type_=type_,
            arguments_error=arguments_error,
            turn=turn,
        )

        context_block_type_7.additional_properties = d
        return context_block_type_7

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
