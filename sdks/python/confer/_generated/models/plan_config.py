from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="PlanConfig")


@_attrs_define
class PlanConfig:
    """Per-agent plan configuration (`plans.md`): whether the built-in plan
    tools are offered, whether the agent is told to plan multi-step
    requests, and whether a tool-made plan waits for a client's approval.

        Attributes:
            auto_create (bool | Unset):  Default: False.
            enabled (bool | Unset):  Default: False.
            require_approval (bool | Unset):  Default: False.
    """

    auto_create: bool | Unset = False
    enabled: bool | Unset = False
    require_approval: bool | Unset = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        auto_create = self.auto_create

        enabled = self.enabled

        require_approval = self.require_approval

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if auto_create is not UNSET:
            field_dict["auto_create"] = auto_create
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if require_approval is not UNSET:
            field_dict["require_approval"] = require_approval

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        auto_create = d.pop("auto_create", UNSET)

        enabled = d.pop("enabled", UNSET)

        require_approval = d.pop("require_approval", UNSET)

        plan_config = cls(
            auto_create=auto_create,
            enabled=enabled,
            require_approval=require_approval,
        )

        plan_config.additional_properties = d
        return plan_config

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
