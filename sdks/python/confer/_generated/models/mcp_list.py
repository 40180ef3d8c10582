from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

if TYPE_CHECKING:
    from ..models.mcp_view import McpView


T = TypeVar("T", bound="McpList")


@_attrs_define
class McpList:
    """The `GET /api/mcps` answer.

    Attributes:
        mcps (list[McpView]):
    """

    mcps: list[McpView]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        mcps = []
        for mcps_item_data in self.mcps:
            mcps_item = mcps_item_data.to_dict()
            mcps.append(mcps_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "mcps": mcps,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.mcp_view import McpView

        d = dict(src_dict)
        mcps = []
        _mcps = d.pop("mcps")
        for mcps_item_data in _mcps:
            mcps_item = McpView.from_dict(mcps_item_data)

            mcps.append(mcps_item)

        mcp_list = cls(
            mcps=mcps,
        )

        mcp_list.additional_properties = d
        return mcp_list

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
