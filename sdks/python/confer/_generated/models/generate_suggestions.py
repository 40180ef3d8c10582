from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="GenerateSuggestions")


@_attrs_define
class GenerateSuggestions:
    """`POST …/suggestions` body.

    Attributes:
        count (int | None | Unset): 1–10 (4).
        save (bool | Unset): Store them as the runner's suggestions (`source: "generated"`).
    """

    count: int | None | Unset = UNSET
    save: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        count: int | None | Unset
        if isinstance(self.count, Unset):
            count = UNSET
        else:
            count = self.count

        save = self.save

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if count is not UNSET:
            field_dict["count"] = count
        if save is not UNSET:
            field_dict["save"] = save

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_count(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        count = _parse_count(d.pop("count", UNSET))

        save = d.pop("save", UNSET)

        generate_suggestions = cls(
            count=count,
            save=save,
        )

        return generate_suggestions
