from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.put_computer_config import PutComputerConfig
    from ..models.repository_input import RepositoryInput


T = TypeVar("T", bound="CodeAgentInput")


@_attrs_define
class CodeAgentInput:
    """The fields of `POST /api/code-agents` (all but `agentId`, `name` and
    the repository optional) and of its PATCH (all optional).

        Attributes:
            agent_id (None | Unset | UUID):
            allowed_commands (list[str] | None | Unset): ≤ 100 word patterns, the last word of each may be `*`; null: any.
            computer (None | PutComputerConfig | Unset):
            description (None | str | Unset): ≤ 4,000 characters.
            max_steps (int | None | Unset): 1–200 (50).
            name (None | str | Unset): 1–100 characters.
            repository (None | RepositoryInput | Unset):
            setup_command (None | str | Unset): ≤ 4 KiB; null: none.
            setup_timeout_secs (int | None | Unset): 1–3600 (600).
            turn_timeout_mins (int | None | Unset): 1–720 (60).
    """

    agent_id: None | Unset | UUID = UNSET
    allowed_commands: list[str] | None | Unset = UNSET
    computer: None | PutComputerConfig | Unset = UNSET
    description: None | str | Unset = UNSET
    max_steps: int | None | Unset = UNSET
    name: None | str | Unset = UNSET
    repository: None | RepositoryInput | Unset = UNSET
    setup_command: None | str | Unset = UNSET
    setup_timeout_secs: int | None | Unset = UNSET
    turn_timeout_mins: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.put_computer_config import PutComputerConfig
        from ..models.repository_input import RepositoryInput

        agent_id: None | str | Unset
        if isinstance(self.agent_id, Unset):
            agent_id = UNSET
        elif isinstance(self.agent_id, UUID):
            agent_id = str(self.agent_id)
        else:
            agent_id = self.agent_id

        allowed_commands: list[str] | None | Unset
        if isinstance(self.allowed_commands, Unset):
            allowed_commands = UNSET
        elif isinstance(self.allowed_commands, list):
            allowed_commands = self.allowed_commands

        else:
            allowed_commands = self.allowed_commands

        computer: dict[str, Any] | None | Unset
        if isinstance(self.computer, Unset):
            computer = UNSET
        elif isinstance(self.computer, PutComputerConfig):
            computer = self.computer.to_dict()
        else:
            computer = self.computer

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        max_steps: int | None | Unset
        if isinstance(self.max_steps, Unset):
            max_steps = UNSET
        else:
            max_steps = self.max_steps

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        repository: dict[str, Any] | None | Unset
        if isinstance(self.repository, Unset):
            repository = UNSET
        elif isinstance(self.repository, RepositoryInput):
            repository = self.repository.to_dict()
        else:
            repository = self.repository

        setup_command: None | str | Unset
        if isinstance(self.setup_command, Unset):
            setup_command = UNSET
        else:
            setup_command = self.setup_command

        setup_timeout_secs: int | None | Unset
        if isinstance(self.setup_timeout_secs, Unset):
            setup_timeout_secs = UNSET
        else:
            setup_timeout_secs = self.setup_timeout_secs

        turn_timeout_mins: int | None | Unset
        if isinstance(self.turn_timeout_mins, Unset):
            turn_timeout_mins = UNSET
        else:
            turn_timeout_mins = self.turn_timeout_mins

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if agent_id is not UNSET:
            field_dict["agentId"] = agent_id
        if allowed_commands is not UNSET:
            field_dict["allowedCommands"] = allowed_commands
        if computer is not UNSET:
            field_dict["computer"] = computer
        if description is not UNSET:
            field_dict["description"] = description
        if max_steps is not UNSET:
            field_dict["maxSteps"] = max_steps
        if name is not UNSET:
            field_dict["name"] = name
        if repository is not UNSET:
            field_dict["repository"] = repository
        if setup_command is not UNSET:
            field_dict["setupCommand"] = setup_command
        if setup_timeout_secs is not UNSET:
            field_dict["setupTimeoutSecs"] = setup_timeout_secs
        if turn_timeout_mins is not UNSET:
            field_dict["turnTimeoutMins"] = turn_timeout_mins

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.put_computer_config import PutComputerConfig
        from ..models.repository_input import RepositoryInput

        d = dict(src_dict)

        def _parse_agent_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                agent_id_type_0 = UUID(data)

                return agent_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        agent_id = _parse_agent_id(d.pop("agentId", UNSET))

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

        allowed_commands = _parse_allowed_commands(d.pop("allowedCommands", UNSET))

        def _parse_computer(data: object) -> None | PutComputerConfig | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                computer_type_0 = PutComputerConfig.from_dict(data)

                return computer_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PutComputerConfig | Unset, data)

        computer = _parse_computer(d.pop("computer", UNSET))

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_max_steps(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_steps = _parse_max_steps(d.pop("maxSteps", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_repository(data: object) -> None | RepositoryInput | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                repository_type_0 = RepositoryInput.from_dict(data)

                return repository_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RepositoryInput | Unset, data)

        repository = _parse_repository(d.pop("repository", UNSET))

        def _parse_setup_command(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        setup_command = _parse_setup_command(d.pop("setupCommand", UNSET))

        def _parse_setup_timeout_secs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        setup_timeout_secs = _parse_setup_timeout_secs(d.pop("setupTimeoutSecs", UNSET))

        def _parse_turn_timeout_mins(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        turn_timeout_mins = _parse_turn_timeout_mins(d.pop("turnTimeoutMins", UNSET))

        code_agent_input = cls(
            agent_id=agent_id,
            allowed_commands=allowed_commands,
            computer=computer,
            description=description,
            max_steps=max_steps,
            name=name,
            repository=repository,
            setup_command=setup_command,
            setup_timeout_secs=setup_timeout_secs,
            turn_timeout_mins=turn_timeout_mins,
        )

        return code_agent_input
