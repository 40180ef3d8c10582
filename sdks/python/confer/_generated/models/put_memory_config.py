from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.memory_scope import MemoryScope
from ..types import UNSET, Unset

T = TypeVar("T", bound="PutMemoryConfig")


@_attrs_define
class PutMemoryConfig:
    """`PUT` body: any subset of the fields.

    Attributes:
        auto_collect (bool | None | Unset):
        auto_inject (bool | None | Unset):
        collect_budget_tokens (int | None | Unset): 200–16,000.
        enabled (bool | None | Unset):
        inject_count (int | None | Unset): 0–20.
        max_memories (int | None | Unset): 1–100,000.
        tool_scope (MemoryScope | None | Unset):
    """

    auto_collect: bool | None | Unset = UNSET
    auto_inject: bool | None | Unset = UNSET
    collect_budget_tokens: int | None | Unset = UNSET
    enabled: bool | None | Unset = UNSET
    inject_count: int | None | Unset = UNSET
    max_memories: int | None | Unset = UNSET
    tool_scope: MemoryScope | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        auto_collect: bool | None | Unset
        if isinstance(self.auto_collect, Unset):
            auto_collect = UNSET
        else:
            auto_collect = self.auto_collect

        auto_inject: bool | None | Unset
        if isinstance(self.auto_inject, Unset):
            auto_inject = UNSET
        else:
            auto_inject = self.auto_inject

        collect_budget_tokens: int | None | Unset
        if isinstance(self.collect_budget_tokens, Unset):
            collect_budget_tokens = UNSET
        else:
            collect_budget_tokens = self.collect_budget_tokens

        enabled: bool | None | Unset
        if isinstance(self.enabled, Unset):
            enabled = UNSET
        else:
            enabled = self.enabled

        inject_count: int | None | Unset
        if isinstance(self.inject_count, Unset):
            inject_count = UNSET
        else:
            inject_count = self.inject_count

        max_memories: int | None | Unset
        if isinstance(self.max_memories, Unset):
            max_memories = UNSET
        else:
            max_memories = self.max_memories

        tool_scope: None | str | Unset
        if isinstance(self.tool_scope, Unset):
            tool_scope = UNSET
        elif isinstance(self.tool_scope, MemoryScope):
            tool_scope = self.tool_scope.value
        else:
            tool_scope = self.tool_scope

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if auto_collect is not UNSET:
            field_dict["autoCollect"] = auto_collect
        if auto_inject is not UNSET:
            field_dict["autoInject"] = auto_inject
        if collect_budget_tokens is not UNSET:
            field_dict["collectBudgetTokens"] = collect_budget_tokens
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if inject_count is not UNSET:
            field_dict["injectCount"] = inject_count
        if max_memories is not UNSET:
            field_dict["maxMemories"] = max_memories
        if tool_scope is not UNSET:
            field_dict["toolScope"] = tool_scope

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_auto_collect(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        auto_collect = _parse_auto_collect(d.pop("autoCollect", UNSET))

        def _parse_auto_inject(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        auto_inject = _parse_auto_inject(d.pop("autoInject", UNSET))

        def _parse_collect_budget_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        collect_budget_tokens = _parse_collect_budget_tokens(d.pop("collectBudgetTokens", UNSET))

        def _parse_enabled(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        enabled = _parse_enabled(d.pop("enabled", UNSET))

        def _parse_inject_count(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        inject_count = _parse_inject_count(d.pop("injectCount", UNSET))

        def _parse_max_memories(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_memories = _parse_max_memories(d.pop("maxMemories", UNSET))

        def _parse_tool_scope(data: object) -> MemoryScope | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                tool_scope_type_0 = MemoryScope(data)

                return tool_scope_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MemoryScope | None | Unset, data)

        tool_scope = _parse_tool_scope(d.pop("toolScope", UNSET))

        put_memory_config = cls(
            auto_collect=auto_collect,
            auto_inject=auto_inject,
            collect_budget_tokens=collect_budget_tokens,
            enabled=enabled,
            inject_count=inject_count,
            max_memories=max_memories,
            tool_scope=tool_scope,
        )

        put_memory_config.additional_properties = d
        return put_memory_config

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
