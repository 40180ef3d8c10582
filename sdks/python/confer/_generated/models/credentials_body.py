from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.credentials_body_env import CredentialsBodyEnv
    from ..models.credentials_body_headers import CredentialsBodyHeaders


T = TypeVar("T", bound="CredentialsBody")


@_attrs_define
class CredentialsBody:
    """`credentials` as sent (write-only).

    Attributes:
        env (CredentialsBodyEnv | Unset):
        headers (CredentialsBodyHeaders | Unset):
    """

    env: CredentialsBodyEnv | Unset = UNSET
    headers: CredentialsBodyHeaders | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        env: dict[str, Any] | Unset = UNSET
        if not isinstance(self.env, Unset):
            env = self.env.to_dict()

        headers: dict[str, Any] | Unset = UNSET
        if not isinstance(self.headers, Unset):
            headers = self.headers.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if env is not UNSET:
            field_dict["env"] = env
        if headers is not UNSET:
            field_dict["headers"] = headers

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.credentials_body_env import CredentialsBodyEnv
        from ..models.credentials_body_headers import CredentialsBodyHeaders

        d = dict(src_dict)
        _env = d.pop("env", UNSET)
        env: CredentialsBodyEnv | Unset
        if isinstance(_env, Unset):
            env = UNSET
        else:
            env = CredentialsBodyEnv.from_dict(_env)

        _headers = d.pop("headers", UNSET)
        headers: CredentialsBodyHeaders | Unset
        if isinstance(_headers, Unset):
            headers = UNSET
        else:
            headers = CredentialsBodyHeaders.from_dict(_headers)

        credentials_body = cls(
            env=env,
            headers=headers,
        )

        credentials_body.additional_properties = d
        return credentials_body

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
