from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.key_role import KeyRole
from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateKey")


@_attrs_define
class CreateKey:
    """`POST /api/keys` body.

    Attributes:
        name (str):
        act_as_users (bool | Unset):
        rate_limit_rps (float | None | Unset): Requests per second; absent: `CONFER_KEY_RATE_LIMIT_RPS`; null:
            unlimited.
        role (KeyRole | None | Unset):
    """

    name: str
    act_as_users: bool | Unset = UNSET
    rate_limit_rps: float | None | Unset = UNSET
    role: KeyRole | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        act_as_users = self.act_as_users

        rate_limit_rps: float | None | Unset
        if isinstance(self.rate_limit_rps, Unset):
            rate_limit_rps = UNSET
        else:
            rate_limit_rps = self.rate_limit_rps

        role: None | str | Unset
        if isinstance(self.role, Unset):
            role = UNSET
        elif isinstance(self.role, KeyRole):
            role = self.role.value
        else:
            role = self.role

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
            }
        )
        if act_as_users is not UNSET:
            field_dict["actAsUsers"] = act_as_users
        if rate_limit_rps is not UNSET:
            field_dict["rateLimitRps"] = rate_limit_rps
        if role is not UNSET:
            field_dict["role"] = role

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        act_as_users = d.pop("actAsUsers", UNSET)

        def _parse_rate_limit_rps(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        rate_limit_rps = _parse_rate_limit_rps(d.pop("rateLimitRps", UNSET))

        def _parse_role(data: object) -> KeyRole | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                role_type_0 = KeyRole(data)

                return role_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(KeyRole | None | Unset, data)

        role = _parse_role(d.pop("role", UNSET))

        create_key = cls(
            name=name,
            act_as_users=act_as_users,
            rate_limit_rps=rate_limit_rps,
            role=role,
        )

        create_key.additional_properties = d
        return create_key

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
