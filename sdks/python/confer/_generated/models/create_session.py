from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateSession")


@_attrs_define
class CreateSession:
    """`POST /api/code-sessions` body.

    Attributes:
        code_agent_id (UUID):
        branch (None | str | Unset): The branch to work on (the code agent's, else the default one).
        message (None | str | Unset): Sent once the session is prepared (≤ 256 KiB).
        title (None | str | Unset): ≤ 200 characters.
    """

    code_agent_id: UUID
    branch: None | str | Unset = UNSET
    message: None | str | Unset = UNSET
    title: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        code_agent_id = str(self.code_agent_id)

        branch: None | str | Unset
        if isinstance(self.branch, Unset):
            branch = UNSET
        else:
            branch = self.branch

        message: None | str | Unset
        if isinstance(self.message, Unset):
            message = UNSET
        else:
            message = self.message

        title: None | str | Unset
        if isinstance(self.title, Unset):
            title = UNSET
        else:
            title = self.title

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "codeAgentId": code_agent_id,
            }
        )
        if branch is not UNSET:
            field_dict["branch"] = branch
        if message is not UNSET:
            field_dict["message"] = message
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        code_agent_id = UUID(d.pop("codeAgentId"))

        def _parse_branch(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        branch = _parse_branch(d.pop("branch", UNSET))

        def _parse_message(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        message = _parse_message(d.pop("message", UNSET))

        def _parse_title(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        title = _parse_title(d.pop("title", UNSET))

        create_session = cls(
            code_agent_id=code_agent_id,
            branch=branch,
            message=message,
            title=title,
        )

        return create_session
