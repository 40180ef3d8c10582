from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="ButtonFields")


@_attrs_define
class ButtonFields:
    """A button's fields in a trigger body (`rateLimitPerMin` is shared with
    the webhook's fields).

        Attributes:
            allowed_origins (list[str] | None | Unset): Who may frame the page; `null`: the org's `allowedEmbedDomains`.
            daily_runs (int | None | Unset): Runs a UTC day (1–100,000; 200).
            public_tools (list[str] | None | Unset): The only server-side tools its runs are offered.
            title (None | str | Unset): The page's heading (default: the runner's name).
    """

    allowed_origins: list[str] | None | Unset = UNSET
    daily_runs: int | None | Unset = UNSET
    public_tools: list[str] | None | Unset = UNSET
    title: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        allowed_origins: list[str] | None | Unset
        if isinstance(self.allowed_origins, Unset):
            allowed_origins = UNSET
        elif isinstance(self.allowed_origins, list):
            allowed_origins = self.allowed_origins

        else:
            allowed_origins = self.allowed_origins

        daily_runs: int | None | Unset
        if isinstance(self.daily_runs, Unset):
            daily_runs = UNSET
        else:
            daily_runs = self.daily_runs

        public_tools: list[str] | None | Unset
        if isinstance(self.public_tools, Unset):
            public_tools = UNSET
        elif isinstance(self.public_tools, list):
            public_tools = self.public_tools

        else:
            public_tools = self.public_tools

        title: None | str | Unset
        if isinstance(self.title, Unset):
            title = UNSET
        else:
            title = self.title

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if allowed_origins is not UNSET:
            field_dict["allowedOrigins"] = allowed_origins
        if daily_runs is not UNSET:
            field_dict["dailyRuns"] = daily_runs
        if public_tools is not UNSET:
            field_dict["publicTools"] = public_tools
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_allowed_origins(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                allowed_origins_type_0 = cast(list[str], data)

                return allowed_origins_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        allowed_origins = _parse_allowed_origins(d.pop("allowedOrigins", UNSET))

        def _parse_daily_runs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        daily_runs = _parse_daily_runs(d.pop("dailyRuns", UNSET))

        def _parse_public_tools(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                public_tools_type_0 = cast(list[str], data)

                return public_tools_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        public_tools = _parse_public_tools(d.pop("publicTools", UNSET))

        def _parse_title(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        title = _parse_title(d.pop("title", UNSET))

        button_fields = cls(
            allowed_origins=allowed_origins,
            daily_runs=daily_runs,
            public_tools=public_tools,
            title=title,
        )

        button_fields.additional_properties = d
        return button_fields

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
