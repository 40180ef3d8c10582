from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="CredentialView")


@_attrs_define
class CredentialView:
    """The configuration as returned.

    Attributes:
        agent_id (str):
        enabled (bool):
        org_id (str):
        resolver_url (str):
        timeout_ms (int):
        signing_secret (None | str | Unset):
    """

    agent_id: str
    enabled: bool
    org_id: str
    resolver_url: str
    timeout_ms: int
    signing_secret: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        enabled = self.enabled

        org_id = self.org_id

        resolver_url = self.resolver_url

        timeout_ms = self.timeout_ms

        signing_secret: None | str | Unset
        if isinstance(self.signing_secret, Unset):
            signing_secret = UNSET
        else:
            signing_secret = self.signing_secret

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "enabled": enabled,
                "org_id": org_id,
                "resolver_url": resolver_url,
                "timeout_ms": timeout_ms,
            }
        )
        if signing_secret is not UNSET:
            field_dict["signing_secret"] = signing_secret

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        enabled = d.pop("enabled")

        org_id = d.pop("org_id")

        resolver_url = d.pop("resolver_url")

        timeout_ms = d.pop("timeout_ms")

        def _parse_signing_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        signing_secret = _parse_signing_secret(d.pop("signing_secret", UNSET))

        credential_view = cls(
            agent_id=agent_id,
            enabled=enabled,
            org_id=org_id,
            resolver_url=resolver_url,
            timeout_ms=timeout_ms,
            signing_secret=signing_secret,
        )

        credential_view.additional_properties = d
        return credential_view

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
