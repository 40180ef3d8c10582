from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.instance_state import InstanceState
from ..models.limits_mode import LimitsMode
from ..models.network_mode import NetworkMode
from ..models.runtime_kind import RuntimeKind
from ..models.size_class import SizeClass
from ..models.stop_reason import StopReason
from ..types import UNSET, Unset

T = TypeVar("T", bound="Instance")


@_attrs_define
class Instance:
    """The stored (and shown) instance.

    Attributes:
        agent_id (UUID): An agent of an organization.
        command_count (int):
        created_at (datetime.datetime):
        id (UUID): A computer instance: one sandbox of a thread (`computer.md` §2).
        last_active_at (datetime.datetime):
        limits_mode (LimitsMode): How an instance's limits are enforced.
        network_mode (NetworkMode): Whether a sandbox reaches the network.
        org_id (UUID): An organization: the boundary of every other resource.
        runtime (RuntimeKind): The runtimes an instance may run on.
        size_class (SizeClass): A sandbox's size.
        state (InstanceState): Where an instance is in its life.
        workspace_path (str):
        code_session_id (None | str | Unset): Code sessions are not built yet: always null.
        delete_due_at (datetime.datetime | None | Unset): When a stopped instance's workspace and record go.
        error (None | str | Unset):
        started_at (datetime.datetime | None | Unset):
        stop_reason (None | StopReason | Unset):
        stopped_at (datetime.datetime | None | Unset):
        thread_id (None | Unset | UUID):
    """

    agent_id: UUID
    command_count: int
    created_at: datetime.datetime
    id: UUID
    last_active_at: datetime.datetime
    limits_mode: LimitsMode
    network_mode: NetworkMode
    org_id: UUID
    runtime: RuntimeKind
    size_class: SizeClass
    state: InstanceState
    workspace_path: str
    code_session_id: None | str | Unset = UNSET
    delete_due_at: datetime.datetime | None | Unset = UNSET
    error: None | str | Unset = UNSET
    started_at: datetime.datetime | None | Unset = UNSET
    stop_reason: None | StopReason | Unset = UNSET
    stopped_at: datetime.datetime | None | Unset = UNSET
    thread_id: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = str(self.agent_id)

        command_count = self.command_count

        created_at = self.created_at.isoformat()

        id = str(self.id)

        last_active_at = self.last_active_at.isoformat()

        limits_mode = self.limits_mode.value

        network_mode = self.network_mode.value

        org_id = str(self.org_id)

        runtime = self.runtime.value

        size_class = self.size_class.value

        state = self.state.value

        workspace_path = self.workspace_path

        code_session_id: None | str | Unset
        if isinstance(self.code_session_id, Unset):
            code_session_id = UNSET
        else:
            code_session_id = self.code_session_id

        delete_due_at: None | str | Unset
        if isinstance(self.delete_due_at, Unset):
            delete_due_at = UNSET
        elif isinstance(self.delete_due_at, datetime.datetime):
            delete_due_at = self.delete_due_at.isoformat()
        else:
            delete_due_at = self.delete_due_at

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        started_at: None | str | Unset
        if isinstance(self.started_at, Unset):
            started_at = UNSET
        elif isinstance(self.started_at, datetime.datetime):
            started_at = self.started_at.isoformat()
        else:
            started_at = self.started_at

        stop_reason: None | str | Unset
        if isinstance(self.stop_reason, Unset):
            stop_reason = UNSET
        elif isinstance(self.stop_reason, StopReason):
            stop_reason = self.stop_reason.value
        else:
            stop_reason = self.stop_reason

        stopped_at: None | str | Unset
        if isinstance(self.stopped_at, Unset):
            stopped_at = UNSET
        elif isinstance(self.stopped_at, datetime.datetime):
            stopped_at = self.stopped_at.isoformat()
        else:
            stopped_at = self.stopped_at

        thread_id: None | str | Unset
        if isinstance(self.thread_id, Unset):
            thread_id = UNSET
        elif isinstance(self.thread_id, UUID):
            thread_id = str(self.thread_id)
        else:
            thread_id = self.thread_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "command_count": command_count,
                "created_at": created_at,
                "id": id,
                "last_active_at": last_active_at,
                "limits_mode": limits_mode,
                "network_mode": network_mode,
                "org_id": org_id,
                "runtime": runtime,
                "size_class": size_class,
                "state": state,
                "workspace_path": workspace_path,
            }
        )
        if code_session_id is not UNSET:
            field_dict["code_session_id"] = code_session_id
        if delete_due_at is not UNSET:
            field_dict["delete_due_at"] = delete_due_at
        if error is not UNSET:
            field_dict["error"] = error
        if started_at is not UNSET:
            field_dict["started_at"] = started_at
        if stop_reason is not UNSET:
            field_dict["stop_reason"] = stop_reason
        if stopped_at is not UNSET:
            field_dict["stopped_at"] = stopped_at
        if thread_id is not UNSET:
            field_dict["thread_id"] = thread_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        agent_id = UUID(d.pop("agent_id"))

        command_count = d.pop("command_count")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        last_active_at = datetime.datetime.fromisoformat(d.pop("last_active_at"))

        limits_mode = LimitsMode(d.pop("limits_mode"))

        network_mode = NetworkMode(d.pop("network_mode"))

        org_id = UUID(d.pop("org_id"))

        runtime = RuntimeKind(d.pop("runtime"))

        size_class = SizeClass(d.pop("size_class"))

        state = InstanceState(d.pop("state"))

        workspace_path = d.pop("workspace_path")

        def _parse_code_session_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        code_session_id = _parse_code_session_id(d.pop("code_session_id", UNSET))

        def _parse_delete_due_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                delete_due_at_type_0 = datetime.datetime.fromisoformat(data)

                return delete_due_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        delete_due_at = _parse_delete_due_at(d.pop("delete_due_at", UNSET))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_started_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                started_at_type_0 = datetime.datetime.fromisoformat(data)

                return started_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        started_at = _parse_started_at(d.pop("started_at", UNSET))

        def _parse_stop_reason(data: object) -> None | StopReason | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                stop_reason_type_0 = StopReason(data)

                return stop_reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | StopReason | Unset, data)

        stop_reason = _parse_stop_reason(d.pop("stop_reason", UNSET))

        def _parse_stopped_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                stopped_at_type_0 = datetime.datetime.fromisoformat(data)

                return stopped_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        stopped_at = _parse_stopped_at(d.pop("stopped_at", UNSET))

        def _parse_thread_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                thread_id_type_0 = UUID(data)

                return thread_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        thread_id = _parse_thread_id(d.pop("thread_id", UNSET))

        instance = cls(
            agent_id=agent_id,
            command_count=command_count,
            created_at=created_at,
            id=id,
            last_active_at=last_active_at,
            limits_mode=limits_mode,
            network_mode=network_mode,
            org_id=org_id,
            runtime=runtime,
            size_class=size_class,
            state=state,
            workspace_path=workspace_path,
            code_session_id=code_session_id,
            delete_due_at=delete_due_at,
            error=error,
            started_at=started_at,
            stop_reason=stop_reason,
            stopped_at=stopped_at,
            thread_id=thread_id,
        )

        instance.additional_properties = d
        return instance

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
