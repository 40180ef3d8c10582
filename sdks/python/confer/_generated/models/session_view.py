from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.session_status import SessionStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="SessionView")


@_attrs_define
class SessionView:
    """A session as every route answers it.

    Attributes:
        agent_id (UUID):
        code_agent_id (UUID):
        created_at (datetime.datetime):
        created_by (str):
        id (UUID):
        org_id (UUID):
        status (SessionStatus): Where a session is.
        thread_id (UUID):
        updated_at (datetime.datetime):
        archived_at (datetime.datetime | None | Unset):
        base_commit (None | str | Unset):
        branch (None | str | Unset):
        instance_id (None | Unset | UUID):
        status_detail (None | str | Unset):
        title (None | str | Unset):
    """

    agent_id: UUID
    code_agent_id: UUID
    created_at: datetime.datetime
    created_by: str
    id: UUID
    org_id: UUID
    status: SessionStatus
    thread_id: UUID
    updated_at: datetime.datetime
    archived_at: datetime.datetime | None | Unset = UNSET
    base_commit: None | str | Unset = UNSET
    branch: None | str | Unset = UNSET
    instance_id: None | Unset | UUID = UNSET
    status_detail: None | str | Unset = UNSET
    title: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = str(self.agent_id)

        code_agent_id = str(self.code_agent_id)

        created_at = self.created_at.isoformat()

        created_by = self.created_by

        id = str(self.id)

        org_id = str(self.org_id)

        status = self.status.value

        thread_id = str(self.thread_id)

        updated_at = self.updated_at.isoformat()

        archived_at: None | str | Unset
        if isinstance(self.archived_at, Unset):
            archived_at = UNSET
        elif isinstance(self.archived_at, datetime.datetime):
            archived_at = self.archived_at.isoformat()
        else:
            archived_at = self.archived_at

        base_commit: None | str | Unset
        if isinstance(self.base_commit, Unset):
            base_commit = UNSET
        else:
            base_commit = self.base_commit

        branch: None | str | Unset
        if isinstance(self.branch, Unset):
            branch = UNSET
        else:
            branch = self.branch

        instance_id: None | str | Unset
        if isinstance(self.instance_id, Unset):
            instance_id = UNSET
        elif isinstance(self.instance_id, UUID):
            instance_id = str(self.instance_id)
        else:
            instance_id = self.instance_id

        status_detail: None | str | Unset
        if isinstance(self.status_detail, Unset):
            status_detail = UNSET
        else:
            status_detail = self.status_detail

        title: None | str | Unset
        if isinstance(self.title, Unset):
            title = UNSET
        else:
            title = self.title

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "code_agent_id": code_agent_id,
                "created_at": created_at,
                "created_by": created_by,
                "id": id,
                "org_id": org_id,
                "status": status,
                "thread_id": thread_id,
                "updated_at": updated_at,
            }
        )
        if archived_at is not UNSET:
            field_dict["archived_at"] = archived_at
        if base_commit is not UNSET:
            field_dict["base_commit"] = base_commit
        if branch is not UNSET:
            field_dict["branch"] = branch
        if instance_id is not UNSET:
            field_dict["instance_id"] = instance_id
        if status_detail is not UNSET:
            field_dict["status_detail"] = status_detail
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        agent_id = UUID(d.pop("agent_id"))

        code_agent_id = UUID(d.pop("code_agent_id"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        created_by = d.pop("created_by")

        id = UUID(d.pop("id"))

        org_id = UUID(d.pop("org_id"))

        status = SessionStatus(d.pop("status"))

        thread_id = UUID(d.pop("thread_id"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        def _parse_archived_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                archived_at_type_0 = datetime.datetime.fromisoformat(data)

                return archived_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        archived_at = _parse_archived_at(d.pop("archived_at", UNSET))

        def _parse_base_commit(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        base_commit = _parse_base_commit(d.pop("base_commit", UNSET))

        def _parse_branch(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        branch = _parse_branch(d.pop("branch", UNSET))

        def _parse_instance_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                instance_id_type_0 = UUID(data)

                return instance_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        instance_id = _parse_instance_id(d.pop("instance_id", UNSET))

        def _parse_status_detail(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        status_detail = _parse_status_detail(d.pop("status_detail", UNSET))

        def _parse_title(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        title = _parse_title(d.pop("title", UNSET))

        session_view = cls(
            agent_id=agent_id,
            code_agent_id=code_agent_id,
            created_at=created_at,
            created_by=created_by,
            id=id,
            org_id=org_id,
            status=status,
            thread_id=thread_id,
            updated_at=updated_at,
            archived_at=archived_at,
            base_commit=base_commit,
            branch=branch,
            instance_id=instance_id,
            status_detail=status_detail,
            title=title,
        )

        session_view.additional_properties = d
        return session_view

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
