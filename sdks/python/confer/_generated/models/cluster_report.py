from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.node_report import NodeReport


T = TypeVar("T", bound="ClusterReport")


@_attrs_define
class ClusterReport:
    """`GET /api/admin/cluster`'s answer.

    Attributes:
        nodes (list[NodeReport]):
        orphaned_shards (int): Shards with no live owner.
        store (str): `postgres` or `sled`.
        node (None | Unset | UUID): This node's id (`null` on sled).
    """

    nodes: list[NodeReport]
    orphaned_shards: int
    store: str
    node: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        nodes = []
        for nodes_item_data in self.nodes:
            nodes_item = nodes_item_data.to_dict()
            nodes.append(nodes_item)

        orphaned_shards = self.orphaned_shards

        store = self.store

        node: None | str | Unset
        if isinstance(self.node, Unset):
            node = UNSET
        elif isinstance(self.node, UUID):
            node = str(self.node)
        else:
            node = self.node

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "nodes": nodes,
                "orphaned_shards": orphaned_shards,
                "store": store,
            }
        )
        if node is not UNSET:
            field_dict["node"] = node

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.node_report import NodeReport

        d = dict(src_dict)
        nodes = []
        _nodes = d.pop("nodes")
        for nodes_item_data in _nodes:
            nodes_item = NodeReport.from_dict(nodes_item_data)

            nodes.append(nodes_item)

        orphaned_shards = d.pop("orphaned_shards")

        store = d.pop("store")

        def _parse_node(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                node_type_0 = UUID(data)

                return node_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        node = _parse_node(d.pop("node", UNSET))

        cluster_report = cls(
            nodes=nodes,
            orphaned_shards=orphaned_shards,
            store=store,
            node=node,
        )

        cluster_report.additional_properties = d
        return cluster_report

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
