from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.trigger_kind import TriggerKind
from ..types import UNSET, Unset

T = TypeVar("T", bound="TriggerWithSecrets")


@_attrs_define
class TriggerWithSecrets:
    """A trigger with the secrets its call made.

    Attributes:
        idempotency_header (str):
        max_body_bytes (int):
        rate_limit_per_min (int):
        require_signature (bool):
        rotation_grace_secs (int):
        token_prefix (str): The token's first characters, as logs show it.
        created_at (datetime.datetime):
        enabled (bool):
        id (UUID):
        kind (TriggerKind): What started a run.
        org_id (UUID):
        runner_id (UUID):
        updated_at (datetime.datetime):
        signing_secret (None | str | Unset): The HMAC key of signed requests (shown once).
        token (None | str | Unset): The path token (shown once).
        url (None | str | Unset): Where to POST: `{public_url}/api/runners/webhooks/{token}`.
    """

    idempotency_header: str
    max_body_bytes: int
    rate_limit_per_min: int
    require_signature: bool
    rotation_grace_secs: int
    token_prefix: str
    created_at: datetime.datetime
    enabled: bool
    id: UUID
    kind: TriggerKind
    org_id: UUID
    runner_id: UUID
    updated_at: datetime.datetime
    signing_secret: None | str | Unset = UNSET
    token: None | str | Unset = UNSET
    url: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        idempotency_header = self.idempotency_header

        max_body_bytes = self.max_body_bytes

        rate_limit_per_min = self.rate_limit_per_min

        require_signature = self.require_signature

        rotation_grace_secs = self.rotation_grace_secs

        token_prefix = self.token_prefix

        created_at = self.created_at.isoformat()

        enabled = self.enabled

        id = str(self.id)

        kind = self.kind.value

        org_id = str(self.org_id)

        runner_id = str(self.runner_id)

        updated_at = self.updated_at.isoformat()

        signing_secret: None | str | Unset
        if isinstance(self.signing_secret, Unset):
            signing_secret = UNSET
        else:
            signing_secret = self.signing_secret

        token: None | str | Unset
        if isinstance(self.token, Unset):
            token = UNSET
        else:
            token = self.token

        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url

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
                "created_at": created_at,
                "enabled": enabled,
                "id": id,
                "kind": kind,
                "org_id": org_id,
                "runner_id": runner_id,
                "updated_at": updated_at,
            }
        )
        if signing_secret is not UNSET:
            field_dict["signing_secret"] = signing_secret
        if token is not UNSET:
            field_dict["token"] = token
        if url is not UNSET:
            field_dict["url"] = url

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

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        enabled = d.pop("enabled")

        id = UUID(d.pop("id"))

        kind = TriggerKind(d.pop("kind"))

        org_id = UUID(d.pop("org_id"))

        runner_id = UUID(d.pop("runner_id"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        def _parse_signing_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        signing_secret = _parse_signing_secret(d.pop("signing_secret", UNSET))

        def _parse_token(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        token = _parse_token(d.pop("token", UNSET))

        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))

        trigger_with_secrets = cls(
            idempotency_header=idempotency_header,
            max_body_bytes=max_body_bytes,
            rate_limit_per_min=rate_limit_per_min,
            require_signature=require_signature,
            rotation_grace_secs=rotation_grace_secs,
            token_prefix=token_prefix,
            created_at=created_at,
            enabled=enabled,
            id=id,
            kind=kind,
            org_id=org_id,
            runner_id=runner_id,
            updated_at=updated_at,
            signing_secret=signing_secret,
            token=token,
            url=url,
        )

        trigger_with_secrets.additional_properties = d
        return trigger_with_secrets

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
