from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.run_status import RunStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.run_error import RunError
    from ..models.run_event_metadata import RunEventMetadata
    from ..models.run_event_output_type_0 import RunEventOutputType0
    from ..models.run_event_pending_tool_calls_item import RunEventPendingToolCallsItem
    from ..models.run_trigger import RunTrigger
    from ..models.run_usage import RunUsage


T = TypeVar("T", bound="RunEvent")


@_attrs_define
class RunEvent:
    """A run.

    Attributes:
        agent_id (UUID):
        attempt (int): 1, then one more for each restart that requeued it.
        created_at (datetime.datetime):
        created_by (str):
        id (UUID):
        input_ (Any):
        metadata (RunEventMetadata):
        org_id (UUID):
        pending_tool_calls (list[RunEventPendingToolCallsItem]):
        runner_id (UUID):
        status (RunStatus): A run's state (`runners.md` Runs §2).
        thread_id (UUID):
        trigger (RunTrigger): A run's trigger: its kind, the trigger's or task's id, and the slot.
        usage (RunUsage): What a run spent: the sum of its usage records, and its running time.
        ended_at (datetime.datetime | None | Unset):
        error (None | RunError | Unset):
        expires_at (datetime.datetime | None | Unset): When a waiting run expires.
        limit (None | str | Unset): The budget field a `paused` run hit.
        output (None | RunEventOutputType0 | Unset):
        started_at (datetime.datetime | None | Unset):
        status_reason (None | str | Unset):
    """

    agent_id: UUID
    attempt: int
    created_at: datetime.datetime
    created_by: str
    id: UUID
    input_: Any
    metadata: RunEventMetadata
    org_id: UUID
    pending_tool_calls: list[RunEventPendingToolCallsItem]
    runner_id: UUID
    status: RunStatus
    thread_id: UUID
    trigger: RunTrigger
    usage: RunUsage
    ended_at: datetime.datetime | None | Unset = UNSET
    error: None | RunError | Unset = UNSET
    expires_at: datetime.datetime | None | Unset = UNSET
    limit: None | str | Unset = UNSET
    output: None | RunEventOutputType0 | Unset = UNSET
    started_at: datetime.datetime | None | Unset = UNSET
    status_reason: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.run_error import RunError
        from ..models.run_event_output_type_0 import RunEventOutputType0

        agent_id = str(self.agent_id)

        attempt = self.attempt

        created_at = self.created_at.isoformat()

        created_by = self.created_by

        id = str(self.id)

        input_ = self.input_

        metadata = self.metadata.to_dict()

        org_id = str(self.org_id)

        pending_tool_calls = []
        for pending_tool_calls_item_data in self.pending_tool_calls:
            pending_tool_calls_item = pending_tool_calls_item_data.to_dict()
            pending_tool_calls.append(pending_tool_calls_item)

        runner_id = str(self.runner_id)

        status = self.status.value

        thread_id = str(self.thread_id)

        trigger = self.trigger.to_dict()

        usage = self.usage.to_dict()

        ended_at: None | str | Unset
        if isinstance(self.ended_at, Unset):
            ended_at = UNSET
        elif isinstance(self.ended_at, datetime.datetime):
            ended_at = self.ended_at.isoformat()
        else:
            ended_at = self.ended_at

        error: dict[str, Any] | None | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        elif isinstance(self.error, RunError):
            error = self.error.to_dict()
        else:
            error = self.error

        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        elif isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        limit: None | str | Unset
        if isinstance(self.limit, Unset):
            limit = UNSET
        else:
            limit = self.limit

        output: dict[str, Any] | None | Unset
        if isinstance(self.output, Unset):
            output = UNSET
        elif isinstance(self.output, RunEventOutputType0):
            output = self.output.to_dict()
        else:
            output = self.output

        started_at: None | str | Unset
        if isinstance(self.started_at, Unset):
            started_at = UNSET
        elif isinstance(self.started_at, datetime.datetime):
            started_at = self.started_at.isoformat()
        else:
            started_at = self.started_at

        status_reason: None | str | Unset
        if isinstance(self.status_reason, Unset):
            status_reason = UNSET
        else:
            status_reason = self.status_reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "attempt": attempt,
                "created_at": created_at,
                "created_by": created_by,
                "id": id,
                "input": input_,
                "metadata": metadata,
                "org_id": org_id,
                "pending_tool_calls": pending_tool_calls,
                "runner_id": runner_id,
                "status": status,
                "thread_id": thread_id,
                "trigger": trigger,
                "usage": usage,
            }
        )
        if ended_at is not UNSET:
            field_dict["ended_at"] = ended_at
        if error is not UNSET:
            field_dict["error"] = error
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if limit is not UNSET:
            field_dict["limit"] = limit
        if output is not UNSET:
            field_dict["output"] = output
        if started_at is not UNSET:
            field_dict["started_at"] = started_at
        if status_reason is not UNSET:
            field_dict["status_reason"] = status_reason

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.run_error import RunError
        from ..models.run_event_metadata import RunEventMetadata
        from ..models.run_event_output_type_0 import RunEventOutputType0
        from ..models.run_event_pending_tool_calls_item import RunEventPendingToolCallsItem
        from ..models.run_trigger import RunTrigger
        from ..models.run_usage import RunUsage

        d = dict(src_dict)
        agent_id = UUID(d.pop("agent_id"))

        attempt = d.pop("attempt")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        created_by = d.pop("created_by")

        id = UUID(d.pop("id"))

        input_ = d.pop("input")

        metadata = RunEventMetadata.from_dict(d.pop("metadata"))

        org_id = UUID(d.pop("org_id"))

        pending_tool_calls = []
        _pending_tool_calls = d.pop("pending_tool_calls")
        for pending_tool_calls_item_data in _pending_tool_calls:
            pending_tool_calls_item = RunEventPendingToolCallsItem.from_dict(
                pending_tool_calls_item_data
            )

            pending_tool_calls.append(pending_tool_calls_item)

        runner_id = UUID(d.pop("runner_id"))

        status = RunStatus(d.pop("status"))

        thread_id = UUID(d.pop("thread_id"))

        trigger = RunTrigger.from_dict(d.pop("trigger"))

        usage = RunUsage.from_dict(d.pop("usage"))

        def _parse_ended_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                ended_at_type_0 = datetime.datetime.fromisoformat(data)

                return ended_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        ended_at = _parse_ended_at(d.pop("ended_at", UNSET))

        def _parse_error(data: object) -> None | RunError | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = RunError.from_dict(data)

                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RunError | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        expires_at = _parse_expires_at(d.pop("expires_at", UNSET))

        def _parse_limit(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        limit = _parse_limit(d.pop("limit", UNSET))

        def _parse_output(data: object) -> None | RunEventOutputType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                output_type_0 = RunEventOutputType0.from_dict(data)

                return output_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RunEventOutputType0 | Unset, data)

        output = _parse_output(d.pop("output", UNSET))

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

        def _parse_status_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        status_reason = _parse_status_reason(d.pop("status_reason", UNSET))

        run_event = cls(
            agent_id=agent_id,
            attempt=attempt,
            created_at=created_at,
            created_by=created_by,
            id=id,
            input_=input_,
            metadata=metadata,
            org_id=org_id,
            pending_tool_calls=pending_tool_calls,
            runner_id=runner_id,
            status=status,
            thread_id=thread_id,
            trigger=trigger,
            usage=usage,
            ended_at=ended_at,
            error=error,
            expires_at=expires_at,
            limit=limit,
            output=output,
            started_at=started_at,
            status_reason=status_reason,
        )

        run_event.additional_properties = d
        return run_event

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
