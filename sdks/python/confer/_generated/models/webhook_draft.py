from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="WebhookDraft")


@_attrs_define
class WebhookDraft:
    """A webhook trigger's fields in a body (camelCase); `None`: absent.

    Attributes:
        idempotency_header (None | str | Unset):
        max_body_bytes (int | None | Unset):
        rate_limit_per_min (int | None | Unset):
        require_signature (bool | None | Unset):
        rotation_grace_secs (int | None | Unset):
    """

    idempotency_header: None | str | Unset = UNSET
    max_body_bytes: int | None | Unset = UNSET
    rate_limit_per_min: int | None | Unset = UNSET
    require_signature: bool | None | Unset = UNSET
    rotation_grace_secs: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        idempotency_header: None | str | Unset
        if isinstance(self.idempotency_header, Unset):
            idempotency_header = UNSET
        else:
            idempotency_header = self.idempotency_header

        max_body_bytes: int | None | Unset
        if isinstance(self.max_body_bytes, Unset):
            max_body_bytes = UNSET
        else:
            max_body_bytes = self.max_body_bytes

        rate_limit_per_min: int | None | Unset
        if isinstance(self.rate_limit_per_min, Unset):
            rate_limit_per_min = UNSET
        else:
            rate_limit_per_min = self.rate_limit_per_min

        require_signature: bool | None | Unset
        if isinstance(self.require_signature, Unset):
            require_signature = UNSET
        else:
            require_signature = self.require_signature

        rotation_grace_secs: int | None | Unset
        if isinstance(self.rotation_grace_secs, Unset):
            rotation_grace_secs = UNSET
        else:
            rotation_grace_secs = self.rotation_grace_secs

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if idempotency_header is not UNSET:
            field_dict["idempotencyHeader"] = idempotency_header
        if max_body_bytes is not UNSET:
            field_dict["maxBodyBytes"] = max_body_bytes
        if rate_limit_per_min is not UNSET:
            field_dict["rateLimitPerMin"] = rate_limit_per_min
        if require_signature is not UNSET:
            field_dict["requireSignature"] = require_signature
        if rotation_grace_secs is not UNSET:
            field_dict["rotationGraceSecs"] = rotation_grace_secs

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_idempotency_header(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        idempotency_header = _parse_idempotency_header(d.pop("idempotencyHeader", UNSET))

        def _parse_max_body_bytes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_body_bytes = _parse_max_body_bytes(d.pop("maxBodyBytes", UNSET))

        def _parse_rate_limit_per_min(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        rate_limit_per_min = _parse_rate_limit_per_min(d.pop("rateLimitPerMin", UNSET))

        def _parse_require_signature(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        require_signature = _parse_require_signature(d.pop("requireSignature", UNSET))

        def _parse_rotation_grace_secs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        rotation_grace_secs = _parse_rotation_grace_secs(d.pop("rotationGraceSecs", UNSET))

        webhook_draft = cls(
            idempotency_header=idempotency_header,
            max_body_bytes=max_body_bytes,
            rate_limit_per_min=rate_limit_per_min,
            require_signature=require_signature,
            rotation_grace_secs=rotation_grace_secs,
        )

        webhook_draft.additional_properties = d
        return webhook_draft

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
