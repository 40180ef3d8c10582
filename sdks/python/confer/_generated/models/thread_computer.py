from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.instance import Instance


T = TypeVar("T", bound="ThreadComputer")


@_attrs_define
class ThreadComputer:
    """A thread's instance.

    Attributes:
        instance (Instance | None | Unset):
    """

    instance: Instance | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.instance import Instance

        instance: dict[str, Any] | None | Unset
        if isinstance(self.instance, Unset):
            instance = UNSET
        elif isinstance(self.instance, Instance):
            instance = self.instance.to_dict()
        else:
            instance = self.instance

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if instance is not UNSET:
            field_dict["instance"] = instance

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.instance import Instance

        d = dict(src_dict)

        def _parse_instance(data: object) -> Instance | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                instance_type_0 = Instance.from_dict(data)

                return instance_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Instance | None | Unset, data)

        instance = _parse_instance(d.pop("instance", UNSET))

        thread_computer = cls(
            instance=instance,
        )

        thread_computer.additional_properties = d
        return thread_computer

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
