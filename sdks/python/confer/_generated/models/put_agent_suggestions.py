from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

T = TypeVar("T", bound="PutAgentSuggestions")


@_attrs_define
class PutAgentSuggestions:
    """`PUT …/suggestions` body.

    Attributes:
        suggestions (list[str]): At most 10, each 1–200 characters once trimmed, no two alike
            ignoring case; `[]` clears them.
    """

    suggestions: list[str]

    def to_dict(self) -> dict[str, Any]:
        suggestions = self.suggestions

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "suggestions": suggestions,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        suggestions = cast(list[str], d.pop("suggestions"))

        put_agent_suggestions = cls(
            suggestions=suggestions,
        )

        return put_agent_suggestions
