from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="PutCredentials")


@_attrs_define
class PutCredentials:
    """`PUT` body: replaces the configuration (omitted optional fields reset to
    their defaults); the signing secret is kept unless `rotateSecret` is true.

        Attributes:
            enabled (bool):
            resolver_url (None | str | Unset):
            rotate_secret (bool | Unset):
            timeout_ms (int | None | Unset):
    """

    enabled: bool
    resolver_url: None | str | Unset = UNSET
    rotate_secret: bool | Unset = UNSET
    timeout_ms: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        enabled = self.enabled

        resolver_url: None | str | Unset
        if isinstance(self.resolver_url, Unset):
            resolver_url = UNSET
        else:
            resolver_url = self.resolver_url

        rotate_secret = self.rotate_secret

        timeout_ms: int | None | Unset
        if isinstance(self.timeout_ms, Unset):
            timeout_ms = UNSET
        else:
            timeout_ms = self.timeout_ms

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "enabled": enabled,
            }
        )
        if resolver_url is not UNSET:
            field_dict["resolverUrl"] = resolver_url
        if rotate_secret is not UNSET:
            field_dict["rotateSecret"] = rotate_secret
        if timeout_ms is not UNSET:
            field_dict["timeoutMs"] = timeout_ms

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        enabled = d.pop("enabled")

        def _parse_resolver_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        resolver_url = _parse_resolver_url(d.pop("resolverUrl", UNSET))

        rotate_secret = d.pop("rotateSecret", UNSET)

        def _parse_timeout_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        timeout_ms = _parse_timeout_ms(d.pop("timeoutMs", UNSET))

        put_credentials = cls(
            enabled=enabled,
            resolver_url=resolver_url,
            rotate_secret=rotate_secret,
            timeout_ms=timeout_ms,
        )

        put_credentials.additional_properties = d
        return put_credentials

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
