from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="DelegateInput")


@_attrs_define
class DelegateInput:
    """One delegate as a PUT names it.

    Attributes:
        agent_id (UUID):
        description (None | str | Unset):
    """

    agent_id: UUID
    description: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        agent_id = str(self.agent_id)

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "agentId": agent_id,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        agent_id = UUID(d.pop("agentId"))

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        delegate_input = cls(
            agent_id=agent_id,
            description=description,
        )

        return delegate_input
