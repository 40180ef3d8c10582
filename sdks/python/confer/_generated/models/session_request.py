from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="SessionRequest")


@_attrs_define
class SessionRequest:
    """`POST …/session` body (all optional; an empty body is `{}`).

    Attributes:
        origin (None | str | Unset): The embedding site's origin, as the page sees it.
        user_token (None | str | Unset): The host site's signed identity (HS256 with the identity secret).
        visitor_secret (None | str | Unset): A `cvs_` secret from an earlier session: the same visitor again.
    """

    origin: None | str | Unset = UNSET
    user_token: None | str | Unset = UNSET
    visitor_secret: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        origin: None | str | Unset
        if isinstance(self.origin, Unset):
            origin = UNSET
        else:
            origin = self.origin

        user_token: None | str | Unset
        if isinstance(self.user_token, Unset):
            user_token = UNSET
        else:
            user_token = self.user_token

        visitor_secret: None | str | Unset
        if isinstance(self.visitor_secret, Unset):
            visitor_secret = UNSET
        else:
            visitor_secret = self.visitor_secret

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if origin is not UNSET:
            field_dict["origin"] = origin
        if user_token is not UNSET:
            field_dict["userToken"] = user_token
        if visitor_secret is not UNSET:
            field_dict["visitorSecret"] = visitor_secret

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_origin(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        origin = _parse_origin(d.pop("origin", UNSET))

        def _parse_user_token(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        user_token = _parse_user_token(d.pop("userToken", UNSET))

        def _parse_visitor_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        visitor_secret = _parse_visitor_secret(d.pop("visitorSecret", UNSET))

        session_request = cls(
            origin=origin,
            user_token=user_token,
            visitor_secret=visitor_secret,
        )

        session_request.additional_properties = d
        return session_request

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
