from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

if TYPE_CHECKING:
    from ..models.remote_header import RemoteHeader


T = TypeVar("T", bound="Remote")


@_attrs_define
class Remote:
    """A remote of a registry server.

    Attributes:
        headers (list[RemoteHeader]):
        transport (str): `streamable_http` or `sse`.
        url (str):
    """

    headers: list[RemoteHeader]
    transport: str
    url: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        headers = []
        for headers_item_data in self.headers:
            headers_item = headers_item_data.to_dict()
            headers.append(headers_item)

        transport = self.transport

        url = self.url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "headers": headers,
                "transport": transport,
                "url": url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.remote_header import RemoteHeader

        d = dict(src_dict)
        headers = []
        _headers = d.pop("headers")
        for headers_item_data in _headers:
            headers_item = RemoteHeader.from_dict(headers_item_data)

            headers.append(headers_item)

        transport = d.pop("transport")

        url = d.pop("url")

        remote = cls(
            headers=headers,
            transport=transport,
            url=url,
        )

        remote.additional_properties = d
        return remote

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
