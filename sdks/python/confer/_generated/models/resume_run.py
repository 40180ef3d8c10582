from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tool_result_body import ToolResultBody


T = TypeVar("T", bound="ResumeRun")


@_attrs_define
class ResumeRun:
    """`POST …/resume` body.

    Attributes:
        tool_results (list[ToolResultBody] | None | Unset):
    """

    tool_results: list[ToolResultBody] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        tool_results: list[dict[str, Any]] | None | Unset
        if isinstance(self.tool_results, Unset):
            tool_results = UNSET
        elif isinstance(self.tool_results, list):
            tool_results = []
            for tool_results_type_0_item_data in self.tool_results:
                tool_results_type_0_item = tool_results_type_0_item_data.to_dict()
                tool_results.append(tool_results_type_0_item)

        else:
            tool_results = self.tool_results

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if tool_results is not UNSET:
            field_dict["toolResults"] = tool_results

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.tool_result_body import ToolResultBody

        d = dict(src_dict)

        def _parse_tool_results(data: object) -> list[ToolResultBody] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tool_results_type_0 = []
                _tool_results_type_0 = data
                for tool_results_type_0_item_data in _tool_results_type_0:
                    tool_results_type_0_item = ToolResultBody.from_dict(
                        tool_results_type_0_item_data
                    )

                    tool_results_type_0.append(tool_results_type_0_item)

                return tool_results_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ToolResultBody] | None | Unset, data)

        tool_results = _parse_tool_results(d.pop("toolResults", UNSET))

        resume_run = cls(
            tool_results=tool_results,
        )

        resume_run.additional_properties = d
        return resume_run

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
