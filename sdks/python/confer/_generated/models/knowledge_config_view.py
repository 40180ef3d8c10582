from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.knowledge_mode import KnowledgeMode
from ..types import UNSET, Unset

T = TypeVar("T", bound="KnowledgeConfigView")


@_attrs_define
class KnowledgeConfigView:
    """The configuration as returned (its schema; `agent_config` shapes it).

    Attributes:
        agent_id (str):
        org_id (str):
        enabled (bool | Unset):  Default: True.
        include_org (bool | Unset): Whether the org's documents are in reach (the agent's and the
            thread's always are). Default: True.
        mode (KnowledgeMode | Unset): How an agent reaches its knowledge (`knowledge.md` §4).
        top_k (int | Unset): Chunks a search gives (1–20). Default: 6.
    """

    agent_id: str
    org_id: str
    enabled: bool | Unset = True
    include_org: bool | Unset = True
    mode: KnowledgeMode | Unset = UNSET
    top_k: int | Unset = 6
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        org_id = self.org_id

        enabled = self.enabled

        include_org = self.include_org

        mode: str | Unset = UNSET
        if not isinstance(self.mode, Unset):
            mode = self.mode.value

        top_k = self.top_k

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "org_id": org_id,
            }
        )
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if include_org is not UNSET:
            field_dict["include_org"] = include_org
        if mode is not UNSET:
            field_dict["mode"] = mode
        if top_k is not UNSET:
            field_dict["top_k"] = top_k

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        org_id = d.pop("org_id")

        enabled = d.pop("enabled", UNSET)

        include_org = d.pop("include_org", UNSET)

        _mode = d.pop("mode", UNSET)
        mode: KnowledgeMode | Unset
        if isinstance(_mode, Unset):
            mode = UNSET
        else:
            mode = KnowledgeMode(_mode)

        top_k = d.pop("top_k", UNSET)

        knowledge_config_view = cls(
            agent_id=agent_id,
            org_id=org_id,
            enabled=enabled,
            include_org=include_org,
            mode=mode,
            top_k=top_k,
        )

        knowledge_config_view.additional_properties = d
        return knowledge_config_view

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
