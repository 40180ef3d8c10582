from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="PutPlanConfig")


@_attrs_define
class PutPlanConfig:
    """`PUT` body: any subset of the fields, each a boolean.

    Attributes:
        auto_create (bool | None | Unset):
        enabled (bool | None | Unset):
        require_approval (bool | None | Unset):
    """

    auto_create: bool | None | Unset = UNSET
    enabled: bool | None | Unset = UNSET
    require_approval: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        auto_create: bool | None | Unset
        if isinstance(self.auto_create, Unset):
            auto_create = UNSET
        else:
            auto_create = self.auto_create

        enabled: bool | None | Unset
        if isinstance(self.enabled, Unset):
            enabled = UNSET
        else:
            enabled = self.enabled

        require_approval: bool | None | Unset
        if isinstance(self.require_approval, Unset):
            require_approval = UNSET
        else:
            require_approval = self.require_approval

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if auto_create is not UNSET:
            field_dict["autoCreate"] = auto_create
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if require_approval is not UNSET:
            field_dict["requireApproval"] = require_approval

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_auto_create(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        auto_create = _parse_auto_create(d.pop("autoCreate", UNSET))

        def _parse_enabled(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        enabled = _parse_enabled(d.pop("enabled", UNSET))

        def _parse_require_approval(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        require_approval = _parse_require_approval(d.pop("requireApproval", UNSET))

        put_plan_config = cls(
            auto_create=auto_create,
            enabled=enabled,
            require_approval=require_approval,
        )

        put_plan_config.additional_properties = d
        return put_plan_config

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
