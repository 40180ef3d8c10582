from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.memory_scope import MemoryScope
from ..types import UNSET, Unset

T = TypeVar("T", bound="MemoryConfig")


@_attrs_define
class MemoryConfig:
    """An agent's memory configuration (`GET/PUT /api/agents/{id}/memory`).

    Attributes:
        auto_collect (bool | Unset):  Default: False.
        auto_inject (bool | Unset): The sender's and shared memories go in the briefing. Default: True.
        collect_budget_tokens (int | Unset): 200–16,000. Default: 2000.
        enabled (bool | Unset):  Default: False.
        inject_count (int | Unset): 0–20. Default: 5.
        max_memories (int | Unset): Per owner (each user; the shared set): 1–100,000. Default: 1000.
        tool_scope (MemoryScope | Unset): Whose a memory is.
    """

    auto_collect: bool | Unset = False
    auto_inject: bool | Unset = True
    collect_budget_tokens: int | Unset = 2000
    enabled: bool | Unset = False
    inject_count: int | Unset = 5
    max_memories: int | Unset = 1000
    tool_scope: MemoryScope | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        auto_collect = self.auto_collect

        auto_inject = self.auto_inject

        collect_budget_tokens = self.collect_budget_tokens

        enabled = self.enabled

        inject_count = self.inject_count

        max_memories = self.max_memories

        tool_scope: str | Unset = UNSET
        if not isinstance(self.tool_scope, Unset):
            tool_scope = self.tool_scope.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if auto_collect is not UNSET:
            field_dict["auto_collect"] = auto_collect
        if auto_inject is not UNSET:
            field_dict["auto_inject"] = auto_inject
        if collect_budget_tokens is not UNSET:
            field_dict["collect_budget_tokens"] = collect_budget_tokens
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if inject_count is not UNSET:
            field_dict["inject_count"] = inject_count
        if max_memories is not UNSET:
            field_dict["max_memories"] = max_memories
        if tool_scope is not UNSET:
            field_dict["tool_scope"] = tool_scope

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        auto_collect = d.pop("auto_collect", UNSET)

        auto_inject = d.pop("auto_inject", UNSET)

        collect_budget_tokens = d.pop("collect_budget_tokens", UNSET)

        enabled = d.pop("enabled", UNSET)

        inject_count = d.pop("inject_count", UNSET)

        max_memories = d.pop("max_memories", UNSET)

        _tool_scope = d.pop("tool_scope", UNSET)
        tool_scope: MemoryScope | Unset
        if isinstance(_tool_scope, Unset):
            tool_scope = UNSET
        else:
            tool_scope = MemoryScope(_tool_scope)

        memory_config = cls(
            auto_collect=auto_collect,
            auto_inject=auto_inject,
            collect_budget_tokens=collect_budget_tokens,
            enabled=enabled,
            inject_count=inject_count,
            max_memories=max_memories,
            tool_scope=tool_scope,
        )

        memory_config.additional_properties = d
        return memory_config

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
