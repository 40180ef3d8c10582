from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.search_mode import SearchMode

if TYPE_CHECKING:
    from ..models.search_result_view import SearchResultView


T = TypeVar("T", bound="SearchView")


@_attrs_define
class SearchView:
    """A search's answer.

    Attributes:
        mode (SearchMode): How results are ranked.
        partial (bool): The index is being rebuilt: results may miss documents.
        results (list[SearchResultView]):
    """

    mode: SearchMode
    partial: bool
    results: list[SearchResultView]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        mode = self.mode.value

        partial = self.partial

        results = []
        for results_item_data in self.results:
            results_item = results_item_data.to_dict()
            results.append(results_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "mode": mode,
                "partial": partial,
                "results": results,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.search_result_view import SearchResultView

        d = dict(src_dict)
        mode = SearchMode(d.pop("mode"))

        partial = d.pop("partial")

        results = []
        _results = d.pop("results")
        for results_item_data in _results:
            results_item = SearchResultView.from_dict(results_item_data)

            results.append(results_item)

        search_view = cls(
            mode=mode,
            partial=partial,
            results=results,
        )

        search_view.additional_properties = d
        return search_view

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
