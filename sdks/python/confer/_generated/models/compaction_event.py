from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="CompactionEvent")


@_attrs_define
class CompactionEvent:
    """The context was compacted (before the answer's tokens): `native`
    (the vendor's block) or `summary` (Confer's).

        Attributes:
            method (str):
            input_tokens_before (int | None | Unset):
            summary (None | str | Unset):
    """

    method: str
    input_tokens_before: int | None | Unset = UNSET
    summary: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        method = self.method

        input_tokens_before: int | None | Unset
        if isinstance(self.input_tokens_before, Unset):
            input_tokens_before = UNSET
        else:
            input_tokens_before = self.input_tokens_before

        summary: None | str | Unset
        if isinstance(self.summary, Unset):
            summary = UNSET
        else:
            summary = self.summary

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "method": method,
            }
        )
        if input_tokens_before is not UNSET:
            field_dict["inputTokensBefore"] = input_tokens_before
        if summary is not UNSET:
            field_dict["summary"] = summary

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        method = d.pop("method")

        def _parse_input_tokens_before(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        input_tokens_before = _parse_input_tokens_before(d.pop("inputTokensBefore", UNSET))

        def _parse_summary(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        summary = _parse_summary(d.pop("summary", UNSET))

        compaction_event = cls(
            method=method,
            input_tokens_before=input_tokens_before,
            summary=summary,
        )

        compaction_event.additional_properties = d
        return compaction_event

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
