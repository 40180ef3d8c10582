from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="ToolProfile")


@_attrs_define
class ToolProfile:
    """A named tool profile: which tools a turn may offer (`*` wildcards).

    Attributes:
        allow (list[str]): Tool-name patterns that are offered.
        deny (list[str] | None | Unset): Tool-name patterns that are withheld even when allowed.
        description (None | str | Unset): What the profile is for.
    """

    allow: list[str]
    deny: list[str] | None | Unset = UNSET
    description: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        allow = self.allow

        deny: list[str] | None | Unset
        if isinstance(self.deny, Unset):
            deny = UNSET
        elif isinstance(self.deny, list):
            deny = self.deny

        else:
            deny = self.deny

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "allow": allow,
            }
        )
        if deny is not UNSET:
            field_dict["deny"] = deny
        if description is not UNSET:
            field_dict["description"] = description

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        allow = cast(list[str], d.pop("allow"))

        def _parse_deny(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                deny_type_0 = cast(list[str], data)

                return deny_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        deny = _parse_deny(d.pop("deny", UNSET))

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        tool_profile = cls(
            allow=allow,
            deny=deny,
            description=description,
        )

        tool_profile.additional_properties = d
        return tool_profile

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
