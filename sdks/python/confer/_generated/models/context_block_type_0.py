from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.context_block_type_0_type import ContextBlockType0Type

T = TypeVar("T", bound="ContextBlockType0")


@_attrs_define
class ContextBlockType0:
    """Confer's summary that stands for the turns before the tail.

    Attributes:
        text (str):
        type_ (ContextBlockType0Type):
    """

    text: str
    type_: ContextBlockType0Type
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        text = self.text

        type_ = self.type_.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "text": text,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        text = d.pop("text")

        type_ = ContextBlockType0Type(d.pop("type"))

        context_block_type_0 = cls(
            text=text,
            type_=type_,
        )

        context_block_type_0.additional_properties = d
        return context_block_type_0

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
