from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

from ..models.search_mode import SearchMode
from ..types import UNSET, Unset

T = TypeVar("T", bound="SearchBody")


@_attrs_define
class SearchBody:
    """The body of a search.

    Attributes:
        query (str): ≤ 1,000 characters, ≤ 64 terms once analyzed.
        agent_id (None | str | Unset): The org's documents and this agent's.
        min_score (float | None | Unset): The least cosine similarity (`vector` mode only).
        mode (None | SearchMode | Unset):
        scope_id (None | str | Unset):
        scope_type (None | str | Unset): One scope only: `org`, `agent` or `thread`.
        thread_id (None | str | Unset): The org's, the thread's agent's and the thread's (required of end
            users).
        top_k (int | None | Unset): 1–20, default 6.
    """

    query: str
    agent_id: None | str | Unset = UNSET
    min_score: float | None | Unset = UNSET
    mode: None | SearchMode | Unset = UNSET
    scope_id: None | str | Unset = UNSET
    scope_type: None | str | Unset = UNSET
    thread_id: None | str | Unset = UNSET
    top_k: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        query = self.query

        agent_id: None | str | Unset
        if isinstance(self.agent_id, Unset):
            agent_id = UNSET
        else:
            agent_id = self.agent_id

        min_score: float | None | Unset
        if isinstance(self.min_score, Unset):
            min_score = UNSET
        else:
            min_score = self.min_score

        mode: None | str | Unset
        if isinstance(self.mode, Unset):
            mode = UNSET
        elif isinstance(self.mode, SearchMode):
            mode = self.mode.value
        else:
            mode = self.mode

        scope_id: None | str | Unset
        if isinstance(self.scope_id, Unset):
            scope_id = UNSET
        else:
            scope_id = self.scope_id

        scope_type: None | str | Unset
        if isinstance(self.scope_type, Unset):
            scope_type = UNSET
        else:
            scope_type = self.scope_type

        thread_id: None | str | Unset
        if isinstance(self.thread_id, Unset):
            thread_id = UNSET
        else:
            thread_id = self.thread_id

        top_k: int | None | Unset
        if isinstance(self.top_k, Unset):
            top_k = UNSET
        else:
            top_k = self.top_k

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "query": query,
            }
        )
        if agent_id is not UNSET:
            field_dict["agentId"] = agent_id
        if min_score is not UNSET:
            field_dict["minScore"] = min_score
        if mode is not UNSET:
            field_dict["mode"] = mode
        if scope_id is not UNSET:
            field_dict["scopeId"] = scope_id
        if scope_type is not UNSET:
            field_dict["scopeType"] = scope_type
        if thread_id is not UNSET:
            field_dict["threadId"] = thread_id
        if top_k is not UNSET:
            field_dict["topK"] = top_k

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        query = d.pop("query")

        def _parse_agent_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        agent_id = _parse_agent_id(d.pop("agentId", UNSET))

        def _parse_min_score(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        min_score = _parse_min_score(d.pop("minScore", UNSET))

        def _parse_mode(data: object) -> None | SearchMode | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                mode_type_0 = SearchMode(data)

                return mode_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SearchMode | Unset, data)

        mode = _parse_mode(d.pop("mode", UNSET))

        def _parse_scope_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        scope_id = _parse_scope_id(d.pop("scopeId", UNSET))

        def _parse_scope_type(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        scope_type = _parse_scope_type(d.pop("scopeType", UNSET))

        def _parse_thread_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        thread_id = _parse_thread_id(d.pop("threadId", UNSET))

        def _parse_top_k(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        top_k = _parse_top_k(d.pop("topK", UNSET))

        search_body = cls(
            query=query,
            agent_id=agent_id,
            min_score=min_score,
            mode=mode,
            scope_id=scope_id,
            scope_type=scope_type,
            thread_id=thread_id,
            top_k=top_k,
        )

        return search_body
