from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="PutOrgSettings")


@_attrs_define
class PutOrgSettings:
    """`POST` body.

    Attributes:
        allowed_embed_domains (list[str] | None | Unset): Replaces the list: `https://host[:port]`,
            `https://*.host[:port]`,
            or `http://` on localhost, `*.localhost`, 127.0.0.1 or [::1]; at
            most 100, stored lowercase and in punycode.
    """

    allowed_embed_domains: list[str] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        allowed_embed_domains: list[str] | None | Unset
        if isinstance(self.allowed_embed_domains, Unset):
            allowed_embed_domains = UNSET
        elif isinstance(self.allowed_embed_domains, list):
            allowed_embed_domains = self.allowed_embed_domains

        else:
            allowed_embed_domains = self.allowed_embed_domains

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if allowed_embed_domains is not UNSET:
            field_dict["allowedEmbedDomains"] = allowed_embed_domains

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_allowed_embed_domains(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                allowed_embed_domains_type_0 = cast(list[str], data)

                return allowed_embed_domains_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        allowed_embed_domains = _parse_allowed_embed_domains(d.pop("allowedEmbedDomains", UNSET))

        put_org_settings = cls(
            allowed_embed_domains=allowed_embed_domains,
        )

        put_org_settings.additional_properties = d
        return put_org_settings

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
