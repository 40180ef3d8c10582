from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.session_user import SessionUser


T = TypeVar("T", bound="VisitorSession")


@_attrs_define
class VisitorSession:
    """A visitor session.

    Attributes:
        expires_in (int): Seconds until the token expires (mint again before).
        resumed (bool): Whether `visitorSecret` named this visitor.
        token (str): `cfv_…`: the bearer credential of the public chat routes.
        visitor_id (str):
        visitor_secret (str): `cvs_…`: resumes this visitor in a later session.
        user (None | SessionUser | Unset):
    """

    expires_in: int
    resumed: bool
    token: str
    visitor_id: str
    visitor_secret: str
    user: None | SessionUser | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.session_user import SessionUser

        expires_in = self.expires_in

        resumed = self.resumed

        token = self.token

        visitor_id = self.visitor_id

        visitor_secret = self.visitor_secret

        user: dict[str, Any] | None | Unset
        if isinstance(self.user, Unset):
            user = UNSET
        elif isinstance(self.user, SessionUser):
            user = self.user.to_dict()
        else:
            user = self.user

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "expires_in": expires_in,
                "resumed": resumed,
                "token": token,
                "visitor_id": visitor_id,
                "visitor_secret": visitor_secret,
            }
        )
        if user is not UNSET:
            field_dict["user"] = user

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.session_user import SessionUser

        d = dict(src_dict)
        expires_in = d.pop("expires_in")

        resumed = d.pop("resumed")

        token = d.pop("token")

        visitor_id = d.pop("visitor_id")

        visitor_secret = d.pop("visitor_secret")

        def _parse_user(data: object) -> None | SessionUser | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                user_type_0 = SessionUser.from_dict(data)

                return user_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SessionUser | Unset, data)

        user = _parse_user(d.pop("user", UNSET))

        visitor_session = cls(
            expires_in=expires_in,
            resumed=resumed,
            token=token,
            visitor_id=visitor_id,
            visitor_secret=visitor_secret,
            user=user,
        )

        visitor_session.additional_properties = d
        return visitor_session

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
