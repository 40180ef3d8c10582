from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.memory_scope import MemoryScope
from ..models.memory_source import MemorySource
from ..types import UNSET, Unset

T = TypeVar("T", bound="MemoryView")


@_attrs_define
class MemoryView:
    """A memory as the API shows it.

    Attributes:
        agent_id (str):
        content (str):
        created_at (str):
        id (str):
        org_id (str):
        scope (MemoryScope): Whose a memory is.
        source (MemorySource): Who wrote a memory.
        last_recalled_at (None | str | Unset):
        score (float | None | Unset): Recall only: the BM25 score.
        thread_id (None | str | Unset):
        user_id (None | str | Unset):
    """

    agent_id: str
    content: str
    created_at: str
    id: str
    org_id: str
    scope: MemoryScope
    source: MemorySource
    last_recalled_at: None | str | Unset = UNSET
    score: float | None | Unset = UNSET
    thread_id: None | str | Unset = UNSET
    user_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        content = self.content

        created_at = self.created_at

        id = self.id

        org_id = self.org_id

        scope = self.scope.value

        source = self.source.value

        last_recalled_at: None | str | Unset
        if isinstance(self.last_recalled_at, Unset):
            last_recalled_at = UNSET
        else:
            last_recalled_at = self.last_recalled_at

        score: float | None | Unset
        if isinstance(self.score, Unset):
            score = UNSET
        else:
            score = self.score

        thread_id: None | str | Unset
        if isinstance(self.thread_id, Unset):
            thread_id = UNSET
        else:
            thread_id = self.thread_id

        user_id: None | str | Unset
        if isinstance(self.user_id, Unset):
            user_id = UNSET
        else:
            user_id = self.user_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "content": content,
                "created_at": created_at,
                "id": id,
                "org_id": org_id,
                "scope": scope,
                "source": source,
            }
        )
        if last_recalled_at is not UNSET:
            field_dict["last_recalled_at"] = last_recalled_at
        if score is not UNSET:
            field_dict["score"] = score
        if thread_id is not UNSET:
            field_dict["thread_id"] = thread_id
        if user_id is not UNSET:
            field_dict["user_id"] = user_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        content = d.pop("content")

        created_at = d.pop("created_at")

        id = d.pop("id")

        org_id = d.pop("org_id")

        scope = MemoryScope(d.pop("scope"))

        source = MemorySource(d.pop("source"))

        def _parse_last_recalled_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        last_recalled_at = _parse_last_recalled_at(d.pop("last_recalled_at", UNSET))

        def _parse_score(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        score = _parse_score(d.pop("score", UNSET))

        def _parse_thread_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        thread_id = _parse_thread_id(d.pop("thread_id", UNSET))

        def _parse_user_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        user_id = _parse_user_id(d.pop("user_id", UNSET))

        memory_view = cls(
            agent_id=agent_id,
            content=content,
            created_at=created_at,
            id=id,
            org_id=org_id,
            scope=scope,
            source=source,
            last_recalled_at=last_recalled_at,
            score=score,
            thread_id=thread_id,
            user_id=user_id,
        )

        memory_view.additional_properties = d
        return memory_view

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
