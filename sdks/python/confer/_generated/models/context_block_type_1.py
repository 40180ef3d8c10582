from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.context_block_type_1_type import ContextBlockType1Type
from ..types import UNSET, Unset

T = TypeVar("T", bound="ContextBlockType1")


@_attrs_define
class ContextBlockType1:
    """A compaction block: the vendor's (`native`) or Confer's (`summary`).

    Attributes:
        encrypted (bool): Whether the vendor's opaque payload is kept (never shown).
        method (str):
        summary (str):
        type_ (ContextBlockType1Type):
        turn (int | None | Unset):
    """

    encrypted: bool
    method: str
    summary: str
    type_: ContextBlockType1Type
    turn: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        encrypted = self.encrypted

        method = self.method

        summary = self.summary

        type_ = self.type_.value

        turn: int | None | Unset
        if isinstance(self.turn, Unset):
            turn = UNSET
        else:
            turn = self.turn

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "encrypted": encrypted,
                "method": method,
                "summary": summary,
                "type": type_,
            }
        )
        if turn is not UNSET:
            field_dict["turn"] = turn

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        encrypted = d.pop("encrypted")

        method = d.pop("method")

        summary = d.pop("summary")

        type_ = ContextBlockType1Type(d.pop("type"))

        def _parse_turn(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        turn = _parse_turn(d.pop("turn", UNSET))

        context_block_type_1 = cls(
            encrypted=encrypted,
            method=method,
            summary=summary,
            type_=type_,
            turn=turn,
        )

        context_block_type_1.additional_properties = d
        return context_block_type_1

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
