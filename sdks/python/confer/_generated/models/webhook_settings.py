from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

T = TypeVar("T", bound="WebhookSettings")


@_attrs_define
class WebhookSettings:
    """A webhook trigger's settings.

    Attributes:
        idempotency_header (str):
        max_body_bytes (int):
        rate_limit_per_min (int):
        require_signature (bool):
        rotation_grace_secs (int):
        token_prefix (str): The token's first characters, as logs show it.
    """

    idempotency_header: str
    max_body_bytes: int
    rate_limit_per_min: int
    require_signature: bool
    rotation_grace_secs: int
    token_prefix: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        idempotency_header = self.idempotency_header

        max_body_bytes = self.max_body_bytes

        rate_limit_per_min = self.rate_limit_per_min

        require_signature = self.require_signature

        rotation_grace_secs = self.rotation_grace_secs

        token_prefix = self.token_prefix

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "idempotency_header": idempotency_header,
                "max_body_bytes": max_body_bytes,
                "rate_limit_per_min": rate_limit_per_min,
                "require_signature": require_signature,
                "rotation_grace_secs": rotation_grace_secs,
                "token_prefix": token_prefix,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        idempotency_header = d.pop("idempotency_header")

        max_body_bytes = d.pop("max_body_bytes")

        rate_limit_per_min = d.pop("rate_limit_per_min")

        require_signature = d.pop("require_signature")

        rotation_grace_secs = d.pop("rotation_grace_secs")

        token_prefix = d.pop("token_prefix")

        webhook_settings = cls(
            idempotency_header=idempotency_header,
            max_body_bytes=max_body_bytes,
            rate_limit_per_min=rate_limit_per_min,
            require_signature=require_signature,
            rotation_grace_secs=rotation_grace_secs,
            token_prefix=token_prefix,
        )

        webhook_settings.additional_properties = d
        return webhook_settings

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
