from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.suggestion_body_input_type_0 import SuggestionBodyInputType0


T = TypeVar("T", bound="SuggestionBody")


@_attrs_define
class SuggestionBody:
    """One item of a PUT body.

    Attributes:
        label (str): 1–100 characters, trimmed; no two alike ignoring case.
        input_ (None | SuggestionBodyInputType0 | Unset): Valid for the runner's input schema (`{}` when absent).
    """

    label: str
    input_: None | SuggestionBodyInputType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.suggestion_body_input_type_0 import SuggestionBodyInputType0

        label = self.label

        input_: dict[str, Any] | None | Unset
        if isinstance(self.input_, Unset):
            input_ = UNSET
        elif isinstance(self.input_, SuggestionBodyInputType0):
            input_ = self.input_.to_dict()
        else:
            input_ = self.input_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "label": label,
            }
        )
        if input_ is not UNSET:
            field_dict["input"] = input_

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.suggestion_body_input_type_0 import SuggestionBodyInputType0

        d = dict(src_dict)
        label = d.pop("label")

        def _parse_input_(data: object) -> None | SuggestionBodyInputType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                input_type_0 = SuggestionBodyInputType0.from_dict(data)

                return input_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SuggestionBodyInputType0 | Unset, data)

        input_ = _parse_input_(d.pop("input", UNSET))

        suggestion_body = cls(
            label=label,
            input_=input_,
        )

        suggestion_body.additional_properties = d
        return suggestion_body

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
