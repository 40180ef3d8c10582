from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

if TYPE_CHECKING:
    from ..models.tool_summary import ToolSummary
    from ..models.tool_view import ToolView


T = TypeVar("T", bound="ToolList")


@_attrs_define
class ToolList:
    """The `GET /api/tools` answer.

    Attributes:
        tools (list[ToolSummary | ToolView]):
    """

    tools: list[ToolSummary | ToolView]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.tool_view import ToolView

        tools = []
        for tools_item_data in self.tools:
            tools_item: dict[str, Any]
            if isinstance(tools_item_data, ToolView):
                tools_item = tools_item_data.to_dict()
            else:
                tools_item = tools_item_data.to_dict()

            tools.append(tools_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "tools": tools,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.tool_summary import ToolSummary
        from ..models.tool_view import ToolView

        d = dict(src_dict)
        tools = []
        _tools = d.pop("tools")
        for tools_item_data in _tools:

            def _parse_tools_item(data: object) -> ToolSummary | ToolView:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_shown_tool_type_0 = ToolView.from_dict(data)

                    return componentsschemas_shown_tool_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_shown_tool_type_1 = ToolSummary.from_dict(data)

                return componentsschemas_shown_tool_type_1

            tools_item = _parse_tools_item(tools_item_data)

            tools.append(tools_item)

        tool_list = cls(
            tools=tools,
        )

        tool_list.additional_properties = d
        return tool_list

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
