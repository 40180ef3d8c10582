from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="SettingsChange")


@_attrs_define
class SettingsChange:
    """`settings` of a create or a PATCH: the fields present change.

    Attributes:
        business_number (None | str | Unset): WhatsApp: 8–15 digits; read from the vendor when not given.
        daily_token_budget (int | None | Unset): Null: no cap.
        error_reply (None | str | Unset): At most 500 characters; `""` sends nothing.
        phone_number_id (None | str | Unset): WhatsApp (required there).
        public_tools (list[str] | None | Unset):
    """

    business_number: None | str | Unset = UNSET
    daily_token_budget: int | None | Unset = UNSET
    error_reply: None | str | Unset = UNSET
    phone_number_id: None | str | Unset = UNSET
    public_tools: list[str] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        business_number: None | str | Unset
        if isinstance(self.business_number, Unset):
            business_number = UNSET
        else:
            business_number = self.business_number

        daily_token_budget: int | None | Unset
        if isinstance(self.daily_token_budget, Unset):
            daily_token_budget = UNSET
        else:
            daily_token_budget = self.daily_token_budget

        error_reply: None | str | Unset
        if isinstance(self.error_reply, Unset):
            error_reply = UNSET
        else:
            error_reply = self.error_reply

        phone_number_id: None | str | Unset
        if isinstance(self.phone_number_id, Unset):
            phone_number_id = UNSET
        else:
            phone_number_id = self.phone_number_id

        public_tools: list[str] | None | Unset
        if isinstance(self.public_tools, Unset):
            public_tools = UNSET
        elif isinstance(self.public_tools, list):
            public_tools = self.public_tools

        else:
            public_tools = self.public_tools

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if business_number is not UNSET:
            field_dict["businessNumber"] = business_number
        if daily_token_budget is not UNSET:
            field_dict["dailyTokenBudget"] = daily_token_budget
        if error_reply is not UNSET:
            field_dict["errorReply"] = error_reply
        if phone_number_id is not UNSET:
            field_dict["phoneNumberId"] = phone_number_id
        if public_tools is not UNSET:
            field_dict["publicTools"] = public_tools

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_business_number(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        business_number = _parse_business_number(d.pop("businessNumber", UNSET))

        def _parse_daily_token_budget(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        daily_token_budget = _parse_daily_token_budget(d.pop("dailyTokenBudget", UNSET))

        def _parse_error_reply(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error_reply = _parse_error_reply(d.pop("errorReply", UNSET))

        def _parse_phone_number_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        phone_number_id = _parse_phone_number_id(d.pop("phoneNumberId", UNSET))

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

        settings_change = cls(
            business_number=business_number,
            daily_token_budget=daily_token_budget,
            error_reply=error_reply,
            phone_number_id=phone_number_id,
            public_tools=public_tools,
        )

        return settings_change
