from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.code_computer_view import CodeComputerView
    from ..models.repository_view import RepositoryView


T = TypeVar("T", bound="CodeAgentView")


@_attrs_define
class CodeAgentView:
    """A code agent as every route answers it.

    Attributes:
        agent_id (UUID):
        computer (CodeComputerView): A code agent's sandbox settings (the computer configuration's fields
            but `enabled`).
        created_at (datetime.datetime):
        description (str):
        id (UUID):
        max_steps (int):
        name (str):
        org_id (UUID):
        repository (RepositoryView): A repository, as shown (never its token).
        setup_timeout_secs (int):
        turn_timeout_mins (int):
        updated_at (datetime.datetime):
        allowed_commands (list[str] | None | Unset):
        setup_command (None | str | Unset):
    """

    agent_id: UUID
    computer: CodeComputerView
    created_at: datetime.datetime
    description: str
    id: UUID
    max_steps: int
    name: str
    org_id: UUID
    repository: RepositoryView
    setup_timeout_secs: int
    turn_timeout_mins: int
    updated_at: datetime.datetime
    allowed_commands: list[str] | None | Unset = UNSET
    setup_command: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = str(self.agent_id)

        computer = self.computer.to_dict()

        created_at = self.created_at.isoformat()

        description = self.description

        id = str(self.id)

        max_steps = self.max_steps

        name = self.name

        org_id = str(self.org_id)

        repository = self.repository.to_dict()

        setup_timeout_secs = self.setup_timeout_secs

        turn_timeout_mins = self.turn_timeout_mins

        updated_at = self.updated_at.isoformat()

        allowed_commands: list[str] | None | Unset
        if isinstance(self.allowed_commands, Unset):
            allowed_commands = UNSET
        elif isinstance(self.allowed_commands, list):
            allowed_commands = self.allowed_commands

        else:
            allowed_commands = self.allowed_commands

        setup_command: None | str | Unset
        if isinstance(self.setup_command, Unset):
            setup_command = UNSET
        else:
            setup_command = self.setup_command

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "computer": computer,
                "created_at": created_at,
                "description": description,
                "id": id,
                "max_steps": max_steps,
                "name": name,
                "org_id": org_id,
                "repository": repository,
                "setup_timeout_secs": setup_timeout_secs,
                "turn_timeout_mins": turn_timeout_mins,
                "updated_at": updated_at,
            }
        )
        if allowed_commands is not UNSET:
            field_dict["allowed_commands"] = allowed_commands
        if setup_command is not UNSET:
            field_dict["setup_command"] = setup_command

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.code_computer_view import CodeComputerView
        from ..models.repository_view import RepositoryView

        d = dict(src_dict)
        agent_id = UUID(d.pop("agent_id"))

        computer = CodeComputerView.from_dict(d.pop("computer"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        description = d.pop("description")

        id = UUID(d.pop("id"))

        max_steps = d.pop("max_steps")

        name = d.pop("name")

        org_id = UUID(d.pop("org_id"))

        repository = RepositoryView.from_dict(d.pop("repository"))

        setup_timeout_secs = d.pop("setup_timeout_secs")

        turn_timeout_mins = d.pop("turn_timeout_mins")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        def _parse_allowed_commands(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                allowed_commands_type_0 = cast(list[str], data)

                return allowed_commands_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        allowed_commands = _parse_allowed_commands(d.pop("allowed_commands", UNSET))

        def _parse_setup_command(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        setup_command = _parse_setup_command(d.pop("setup_command", UNSET))

        code_agent_view = cls(
            agent_id=agent_id,
            computer=computer,
            created_at=created_at,
            description=description,
            id=id,
            max_steps=max_steps,
            name=name,
            org_id=org_id,
            repository=repository,
            setup_timeout_secs=setup_timeout_secs,
            turn_timeout_mins=turn_timeout_mins,
            updated_at=updated_at,
            allowed_commands=allowed_commands,
            setup_command=setup_command,
        )

        code_agent_view.additional_properties = d
        return code_agent_view

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
