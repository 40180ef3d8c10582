from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="ChannelSettings")


@_attrs_define
class ChannelSettings:
    """A channel's settings, as stored and answered.

    Attributes:
        error_reply (str): Sent after a failed turn; `""`: nothing.
        public_tools (list[str]): The only server-side tools a contact's turn may run.
        business_number (None | str | Unset): WhatsApp: its number, digits only (the `wa.me` link).
        daily_token_budget (int | None | Unset): Tokens the channel's turns may use per UTC day; `None`: no cap.
        phone_number_id (None | str | Unset): WhatsApp: the business phone number's id.
    """

    error_reply: str
    public_tools: list[str]
    business_number: None | str | Unset = UNSET
    daily_token_budget: int | None | Unset = UNSET
    phone_number_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        error_reply = self.error_reply

        public_tools = self.public_tools

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

        phone_number_id: None | str | Unset
        if isinstance(self.phone_number_id, Unset):
            phone_number_id = UNSET
        else:
            phone_number_id = self.phone_number_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "error_reply": error_reply,
                "public_tools": public_tools,
            }
        )
        if business_number is not UNSET:
            field_dict["business_number"] = business_number
        if daily_token_budget is not UNSET:
            field_dict["daily_token_budget"] = daily_token_budget
        if phone_number_id is not UNSET:
            field_dict["phone_number_id"] = phone_number_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        error_reply = d.pop("error_reply")

        public_tools = cast(list[str], d.pop("public_tools"))

        def _parse_business_number(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        business_number = _parse_business_number(d.pop("business_number", UNSET))

        def _parse_daily_token_budget(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        daily_token_budget = _parse_daily_token_budget(d.pop("daily_token_budget", UNSET))

        def _parse_phone_number_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        phone_number_id = _parse_phone_number_id(d.pop("phone_number_id", UNSET))

        channel_settings = cls(
            error_reply=error_reply,
            public_tools=public_tools,
            business_number=business_number,
            daily_token_budget=daily_token_budget,
            phone_number_id=phone_number_id,
        )

        channel_settings.additional_properties = d
        return channel_settings

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
