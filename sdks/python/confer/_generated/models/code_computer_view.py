from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.size_class import SizeClass

if TYPE_CHECKING:
    from ..models.code_computer_view_env import CodeComputerViewEnv
    from ..models.network import Network


T = TypeVar("T", bound="CodeComputerView")


@_attrs_define
class CodeComputerView:
    """A code agent's sandbox settings (the computer configuration's fields
    but `enabled`).

        Attributes:
            env (CodeComputerViewEnv):
            idle_timeout_secs (int):
            max_command_secs (int):
            network (Network): A sandbox's network.
            output_limit_bytes (int):
            size_class (SizeClass): A sandbox's size.
    """

    env: CodeComputerViewEnv
    idle_timeout_secs: int
    max_command_secs: int
    network: Network
    output_limit_bytes: int
    size_class: SizeClass
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        env = self.env.to_dict()

        idle_timeout_secs = self.idle_timeout_secs

        max_command_secs = self.max_command_secs

        network = self.network.to_dict()

        output_limit_bytes = self.output_limit_bytes

        size_class = self.size_class.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "env": env,
                "idle_timeout_secs": idle_timeout_secs,
                "max_command_secs": max_command_secs,
                "network": network,
                "output_limit_bytes": output_limit_bytes,
                "size_class": size_class,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.code_computer_view_env import CodeComputerViewEnv
        from ..models.network import Network

        d = dict(src_dict)
        env = CodeComputerViewEnv.from_dict(d.pop("env"))

        idle_timeout_secs = d.pop("idle_timeout_secs")

        max_command_secs = d.pop("max_command_secs")

        network = Network.from_dict(d.pop("network"))

        output_limit_bytes = d.pop("output_limit_bytes")

        size_class = SizeClass(d.pop("size_class"))

        code_computer_view = cls(
            env=env,
            idle_timeout_secs=idle_timeout_secs,
            max_command_secs=max_command_secs,
            network=network,
            output_limit_bytes=output_limit_bytes,
            size_class=size_class,
        )

        code_computer_view.additional_properties = d
        return code_computer_view

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
