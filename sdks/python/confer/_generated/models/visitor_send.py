from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.if_busy_body import IfBusyBody
from ..types import UNSET, Unset

T = TypeVar("T", bound="VisitorSend")


@_attrs_define
class VisitorSend:
    """`POST …/messages` body: nothing but these two.

    Attributes:
        content (str):
        if_busy (IfBusyBody | None | Unset):
    """

    content: str
    if_busy: IfBusyBody | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content = self.content

        if_busy: None | str | Unset
        if isinstance(self.if_busy, Unset):
            if_busy = UNSET
        elif isinstance(self.if_busy, IfBusyBody):
            if_busy = self.if_busy.value
        else:
            if_busy = self.if_busy

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content": content,
            }
        )
        if if_busy is not UNSET:
            field_dict["ifBusy"] = if_busy

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        content = d.pop("content")

        def _parse_if_busy(data: object) -> IfBusyBody | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                if_busy_type_0 = IfBusyBody(data)

                return if_busy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(IfBusyBody | None | Unset, data)

        if_busy = _parse_if_busy(d.pop("ifBusy", UNSET))

        visitor_send = cls(
            content=content,
            if_busy=if_busy,
        )

        visitor_send.additional_properties = d
        return visitor_send

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
