from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.key_role import KeyRole
from ..types import UNSET, Unset

T = TypeVar("T", bound="CreatedKey")


@_attrs_define
class CreatedKey:
    """A key with its secret: the answer of the call that created it.

    Attributes:
        act_as_users (bool):
        created_at (str):
        id (str):
        name (str):
        org_id (str):
        prefix (str):
        role (KeyRole): What an API key may do inside its org.
        key (str):
        last_used_at (None | str | Unset):
        rate_limit_rps (float | None | Unset):
    """

    act_as_users: bool
    created_at: str
    id: str
    name: str
    org_id: str
    prefix: str
    role: KeyRole
    key: str
    last_used_at: None | str | Unset = UNSET
    rate_limit_rps: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        act_as_users = self.act_as_users

        created_at = self.created_at

        id = self.id

        name = self.name

        org_id = self.org_id

        prefix = self.prefix

        role = self.role.value

        key = self.key

        last_used_at: None | str | Unset
        if isinstance(self.last_used_at, Unset):
            last_used_at = UNSET
        else:
            last_used_at = self.last_used_at

        rate_limit_rps: float | None | Unset
        if isinstance(self.rate_limit_rps, Unset):
            rate_limit_rps = UNSET
        else:
            rate_limit_rps = self.rate_limit_rps

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "act_as_users": act_as_users,
                "created_at": created_at,
                "id": id,
                "name": name,
                "org_id": org_id,
                "prefix": prefix,
                "role": role,
                "key": key,
            }
        )
        if last_used_at is not UNSET:
            field_dict["last_used_at"] = last_used_at
        if rate_limit_rps is not UNSET:
            field_dict["rate_limit_rps"] = rate_limit_rps

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        act_as_users = d.pop("act_as_users")

        created_at = d.pop("created_at")

        id = d.pop("id")

        name = d.pop("name")

        org_id = d.pop("org_id")

        prefix = d.pop("prefix")

        role = KeyRole(d.pop("role"))

        key = d.pop("key")

        def _parse_last_used_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        last_used_at = _parse_last_used_at(d.pop("last_used_at", UNSET))

        def _parse_rate_limit_rps(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        rate_limit_rps = _parse_rate_limit_rps(d.pop("rate_limit_rps", UNSET))

        created_key = cls(
            act_as_users=act_as_users,
            created_at=created_at,
            id=id,
            name=name,
            org_id=org_id,
            prefix=prefix,
            role=role,
            key=key,
            last_used_at=last_used_at,
            rate_limit_rps=rate_limit_rps,
        )

        created_key.additional_properties = d
        return created_key

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
