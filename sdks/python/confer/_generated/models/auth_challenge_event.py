from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

if TYPE_CHECKING:
    from ..models.auth_challenge import AuthChallenge


T = TypeVar("T", bound="AuthChallengeEvent")


@_attrs_define
class AuthChallengeEvent:
    """A tool needs the end user to connect an account (an MCP server's
    OAuth, `tools.md` §8); its `tool_result` follows.

        Attributes:
            challenge (AuthChallenge): What an `auth_challenge` asks of the user.
            tool_name (str):
    """

    challenge: AuthChallenge
    tool_name: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        challenge = self.challenge.to_dict()

        tool_name = self.tool_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "challenge": challenge,
                "toolName": tool_name,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.auth_challenge import AuthChallenge

        d = dict(src_dict)
        challenge = AuthChallenge.from_dict(d.pop("challenge"))

        tool_name = d.pop("toolName")

        auth_challenge_event = cls(
            challenge=challenge,
            tool_name=tool_name,
        )

        auth_challenge_event.additional_properties = d
        return auth_challenge_event

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
