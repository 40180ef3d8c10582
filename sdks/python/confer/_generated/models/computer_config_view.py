from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.runtime_kind import RuntimeKind
from ..models.runtime_provider import RuntimeProvider
from ..models.size_class import SizeClass
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.computer_config_view_env import ComputerConfigViewEnv
    from ..models.network import Network


T = TypeVar("T", bound="ComputerConfigView")


@_attrs_define
class ComputerConfigView:
    """An agent's computer configuration as shown.

    Attributes:
        agent_id (UUID):
        available (bool):
        enabled (bool):
        env (ComputerConfigViewEnv):
        idle_timeout_secs (int):
        max_command_secs (int):
        network (Network): A sandbox's network.
        org_id (UUID):
        output_limit_bytes (int):
        runtime_provider (RuntimeProvider): The execution runtime of an agent's sandboxed tools.
        size_class (SizeClass): A sandbox's size.
        effective_runtime (None | RuntimeKind | Unset):
        unavailable_reason (None | str | Unset):
        updated_at (datetime.datetime | None | Unset):
    """

    agent_id: UUID
    available: bool
    enabled: bool
    env: ComputerConfigViewEnv
    idle_timeout_secs: int
    max_command_secs: int
    network: Network
    org_id: UUID
    output_limit_bytes: int
    runtime_provider: RuntimeProvider
    size_class: SizeClass
    effective_runtime: None | RuntimeKind | Unset = UNSET
    unavailable_reason: None | str | Unset = UNSET
    updated_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = str(self.agent_id)

        available = self.available

        enabled = self.enabled

        env = self.env.to_dict()

        idle_timeout_secs = self.idle_timeout_secs

        max_command_secs = self.max_command_secs

        network = self.network.to_dict()

        org_id = str(self.org_id)

        output_limit_bytes = self.output_limit_bytes

        runtime_provider = self.runtime_provider.value

        size_class = self.size_class.value

        effective_runtime: None | str | Unset
        if isinstance(self.effective_runtime, Unset):
            effective_runtime = UNSET
        elif isinstance(self.effective_runtime, RuntimeKind):
            effective_runtime = self.effective_runtime.value
        else:
            effective_runtime = self.effective_runtime

        unavailable_reason: None | str | Unset
        if isinstance(self.unavailable_reason, Unset):
            unavailable_reason = UNSET
        else:
            unavailable_reason = self.unavailable_reason

        updated_at: None | str | Unset
        if isinstance(self.updated_at, Unset):
            updated_at = UNSET
        elif isinstance(self.updated_at, datetime.datetime):
            updated_at = self.updated_at.isoformat()
        else:
            updated_at = self.updated_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "available": available,
                "enabled": enabled,
                "env": env,
                "idle_timeout_secs": idle_timeout_secs,
                "max_command_secs": max_command_secs,
                "network": network,
                "org_id": org_id,
                "output_limit_bytes": output_limit_bytes,
                "runtime_provider": runtime_provider,
                "size_class": size_class,
            }
        )
        if effective_runtime is not UNSET:
            field_dict["effective_runtime"] = effective_runtime
        if unavailable_reason is not UNSET:
            field_dict["unavailable_reason"] = unavailable_reason
        if updated_at is not UNSET:
            field_dict["updated_at"] = updated_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.computer_config_view_env import ComputerConfigViewEnv
        from ..models.network import Network

        d = dict(src_dict)
        agent_id = UUID(d.pop("agent_id"))

        available = d.pop("available")

        enabled = d.pop("enabled")

        env = ComputerConfigViewEnv.from_dict(d.pop("env"))

        idle_timeout_secs = d.pop("idle_timeout_secs")

        max_command_secs = d.pop("max_command_secs")

        network = Network.from_dict(d.pop("network"))

        org_id = UUID(d.pop("org_id"))

        output_limit_bytes = d.pop("output_limit_bytes")

        runtime_provider = RuntimeProvider(d.pop("runtime_provider"))

        size_class = SizeClass(d.pop("size_class"))

        def _parse_effective_runtime(data: object) -> None | RuntimeKind | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                effective_runtime_type_0 = RuntimeKind(data)

                return effective_runtime_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RuntimeKind | Unset, data)

        effective_runtime = _parse_effective_runtime(d.pop("effective_runtime", UNSET))

        def _parse_unavailable_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        unavailable_reason = _parse_unavailable_reason(d.pop("unavailable_reason", UNSET))

        def _parse_updated_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                updated_at_type_0 = datetime.datetime.fromisoformat(data)

                return updated_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        updated_at = _parse_updated_at(d.pop("updated_at", UNSET))

        computer_config_view = cls(
            agent_id=agent_id,
            available=available,
            enabled=enabled,
            env=env,
            idle_timeout_secs=idle_timeout_secs,
            max_command_secs=max_command_secs,
            network=network,
            org_id=org_id,
            output_limit_bytes=output_limit_bytes,
            runtime_provider=runtime_provider,
            size_class=size_class,
            effective_runtime=effective_runtime,
            unavailable_reason=unavailable_reason,
            updated_at=updated_at,
        )

        computer_config_view.additional_properties = d
        return computer_config_view

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
