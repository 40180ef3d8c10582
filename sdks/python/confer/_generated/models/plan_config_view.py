from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="PlanConfigView")


@_attrs_define
class PlanConfigView:
    """The configuration as returned.

    Attributes:
        agent_id (str):
        org_id (str):
        auto_create (bool | Unset):  Default: False.
        enabled (bool | Unset):  Default: False.
        require_approval (bool | Unset):  Default: False.
    """

    agent_id: str
    org_id: str
    auto_create: bool | Unset = False
    enabled: bool | Unset = False
    require_approval: bool | Unset = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        org_id = self.org_id

        auto_create = self.auto_create

        enabled = self.enabled

        require_approval = self.require_approval

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "org_id": org_id,
            }
        )
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
        agent_id = d.pop("agent_id")

        org_id = d.pop("org_id")

        auto_create = d.pop("auto_create", UNSET)

        enabled = d.pop("enabled", UNSET)

        require_approval = d.pop("require_approval", UNSET)

        plan_config_view = cls(
            agent_id=agent_id,
            org_id=org_id,
            auto_create=auto_create,
            enabled=enabled,
            require_approval=require_approval,
        )

        plan_config_view.additional_properties = d
        return plan_config_view

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
