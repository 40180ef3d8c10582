from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

from ..models.size_class import SizeClass
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.network import Network
    from ..models.put_computer_config_env_type_0 import PutComputerConfigEnvType0


T = TypeVar("T", bound="PutComputerConfig")


@_attrs_define
class PutComputerConfig:
    """`PUT /api/agents/{id}/computer`: every field optional.

    Attributes:
        enabled (bool | None | Unset):
        env (None | PutComputerConfigEnvType0 | Unset): ≤ 32 names, not PATH, HOME or *_PROXY; values ≤ 4 KiB.
        idle_timeout_secs (int | None | Unset): 10–86400.
        max_command_secs (int | None | Unset): 1–3600.
        network (Network | None | Unset):
        output_limit_bytes (int | None | Unset): 1024–262144.
        size_class (None | SizeClass | Unset):
    """

    enabled: bool | None | Unset = UNSET
    env: None | PutComputerConfigEnvType0 | Unset = UNSET
    idle_timeout_secs: int | None | Unset = UNSET
    max_command_secs: int | None | Unset = UNSET
    network: Network | None | Unset = UNSET
    output_limit_bytes: int | None | Unset = UNSET
    size_class: None | SizeClass | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.network import Network
        from ..models.put_computer_config_env_type_0 import PutComputerConfigEnvType0

        enabled: bool | None | Unset
        if isinstance(self.enabled, Unset):
            enabled = UNSET
        else:
            enabled = self.enabled

        env: dict[str, Any] | None | Unset
        if isinstance(self.env, Unset):
            env = UNSET
        elif isinstance(self.env, PutComputerConfigEnvType0):
            env = self.env.to_dict()
        else:
            env = self.env

        idle_timeout_secs: int | None | Unset
        if isinstance(self.idle_timeout_secs, Unset):
            idle_timeout_secs = UNSET
        else:
            idle_timeout_secs = self.idle_timeout_secs

        max_command_secs: int | None | Unset
        if isinstance(self.max_command_secs, Unset):
            max_command_secs = UNSET
        else:
            max_command_secs = self.max_command_secs

        network: dict[str, Any] | None | Unset
        if isinstance(self.network, Unset):
            network = UNSET
        elif isinstance(self.network, Network):
            network = self.network.to_dict()
        else:
            network = self.network

        output_limit_bytes: int | None | Unset
        if isinstance(self.output_limit_bytes, Unset):
            output_limit_bytes = UNSET
        else:
            output_limit_bytes = self.output_limit_bytes

        size_class: None | str | Unset
        if isinstance(self.size_class, Unset):
            size_class = UNSET
        elif isinstance(self.size_class, SizeClass):
            size_class = self.size_class.value
        else:
            size_class = self.size_class

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if env is not UNSET:
            field_dict["env"] = env
        if idle_timeout_secs is not UNSET:
            field_dict["idleTimeoutSecs"] = idle_timeout_secs
        if max_command_secs is not UNSET:
            field_dict["maxCommandSecs"] = max_command_secs
        if network is not UNSET:
            field_dict["network"] = network
        if output_limit_bytes is not UNSET:
            field_dict["outputLimitBytes"] = output_limit_bytes
        if size_class is not UNSET:
            field_dict["sizeClass"] = size_class

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.network import Network
        from ..models.put_computer_config_env_type_0 import PutComputerConfigEnvType0

        d = dict(src_dict)

        def _parse_enabled(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        enabled = _parse_enabled(d.pop("enabled", UNSET))

        def _parse_env(data: object) -> None | PutComputerConfigEnvType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                env_type_0 = PutComputerConfigEnvType0.from_dict(data)

                return env_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PutComputerConfigEnvType0 | Unset, data)

        env = _parse_env(d.pop("env", UNSET))

        def _parse_idle_timeout_secs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        idle_timeout_secs = _parse_idle_timeout_secs(d.pop("idleTimeoutSecs", UNSET))

        def _parse_max_command_secs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_command_secs = _parse_max_command_secs(d.pop("maxCommandSecs", UNSET))

        def _parse_network(data: object) -> Network | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                network_type_0 = Network.from_dict(data)

                return network_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Network | None | Unset, data)

        network = _parse_network(d.pop("network", UNSET))

        def _parse_output_limit_bytes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        output_limit_bytes = _parse_output_limit_bytes(d.pop("outputLimitBytes", UNSET))

        def _parse_size_class(data: object) -> None | SizeClass | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                size_class_type_0 = SizeClass(data)

                return size_class_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SizeClass | Unset, data)

        size_class = _parse_size_class(d.pop("sizeClass", UNSET))

        put_computer_config = cls(
            enabled=enabled,
            env=env,
            idle_timeout_secs=idle_timeout_secs,
            max_command_secs=max_command_secs,
            network=network,
            output_limit_bytes=output_limit_bytes,
            size_class=size_class,
        )

        return put_computer_config
