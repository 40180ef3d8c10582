from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

T = TypeVar("T", bound="QrAnswer")


@_attrs_define
class QrAnswer:
    """The JSON answer.

    Attributes:
        channel_id (UUID):
        link (str):
        png (str): `data:image/png;base64,…`
        svg (str):
    """

    channel_id: UUID
    link: str
    png: str
    svg: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        channel_id = str(self.channel_id)

        link = self.link

        png = self.png

        svg = self.svg

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "channel_id": channel_id,
                "link": link,
                "png": png,
                "svg": svg,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        channel_id = UUID(d.pop("channel_id"))

        link = d.pop("link")

        png = d.pop("png")

        svg = d.pop("svg")

        qr_answer = cls(
            channel_id=channel_id,
            link=link,
            png=png,
            svg=svg,
        )

        qr_answer.additional_properties = d
        return qr_answer

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
