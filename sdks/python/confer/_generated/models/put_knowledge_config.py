from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.knowledge_mode import KnowledgeMode
from ..types import UNSET, Unset

T = TypeVar("T", bound="PutKnowledgeConfig")


@_attrs_define
class PutKnowledgeConfig:
    """`PUT` body: any subset of the fields.

    Attributes:
        enabled (bool | None | Unset):
        include_org (bool | None | Unset):
        mode (KnowledgeMode | None | Unset):
        top_k (int | None | Unset): 1–20.
    """

    enabled: bool | None | Unset = UNSET
    include_org: bool | None | Unset = UNSET
    mode: KnowledgeMode | None | Unset = UNSET
    top_k: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        enabled: bool | None | Unset
        if isinstance(self.enabled, Unset):
            enabled = UNSET
        else:
            enabled = self.enabled

        include_org: bool | None | Unset
        if isinstance(self.include_org, Unset):
            include_org = UNSET
        else:
            include_org = self.include_org

        mode: None | str | Unset
        if isinstance(self.mode, Unset):
            mode = UNSET
        elif isinstance(self.mode, KnowledgeMode):
            mode = self.mode.value
        else:
            mode = self.mode

        top_k: int | None | Unset
        if isinstance(self.top_k, Unset):
            top_k = UNSET
        else:
            top_k = self.top_k

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if include_org is not UNSET:
            field_dict["includeOrg"] = include_org
        if mode is not UNSET:
            field_dict["mode"] = mode
        if top_k is not UNSET:
            field_dict["topK"] = top_k

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_enabled(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        enabled = _parse_enabled(d.pop("enabled", UNSET))

        def _parse_include_org(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        include_org = _parse_include_org(d.pop("includeOrg", UNSET))

        def _parse_mode(data: object) -> KnowledgeMode | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                mode_type_0 = KnowledgeMode(data)

                return mode_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(KnowledgeMode | None | Unset, data)

        mode = _parse_mode(d.pop("mode", UNSET))

        def _parse_top_k(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        top_k = _parse_top_k(d.pop("topK", UNSET))

        put_knowledge_config = cls(
            enabled=enabled,
            include_org=include_org,
            mode=mode,
            top_k=top_k,
        )

        put_knowledge_config.additional_properties = d
        return put_knowledge_config

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
