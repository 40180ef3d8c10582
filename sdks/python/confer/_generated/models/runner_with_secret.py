from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.output_mode import OutputMode
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.completion_webhook import CompletionWebhook
    from ..models.runner_client_tools_item import RunnerClientToolsItem
    from ..models.runner_input_schema import RunnerInputSchema
    from ..models.runner_metadata import RunnerMetadata
    from ..models.runner_output_schema_type_0 import RunnerOutputSchemaType0


T = TypeVar("T", bound="RunnerWithSecret")


@_attrs_define
class RunnerWithSecret:
    """A runner, with the completion secret its call made (shown once: on
    create with a `completionWebhook`, on a PATCH that sets a new URL or
    has `rotateWebhookSecret`).

        Attributes:
            agent_id (UUID):
            client_tools (list[RunnerClientToolsItem]):
            created_at (datetime.datetime):
            id (UUID):
            input_schema (RunnerInputSchema):
            instructions (str): A `minijinja` template over `{input, run, now}`.
            max_concurrent_runs (int):
            max_queued_runs (int):
            metadata (RunnerMetadata):
            name (str):
            org_id (UUID):
            output_mode (OutputMode): How a run's answer becomes its output.
            resume_timeout_secs (int):
            updated_at (datetime.datetime):
            version (int): Bumped by every change.
            completion_webhook (CompletionWebhook | None | Unset):
            description (None | str | Unset):
            model (None | str | Unset): The model; `None`: the agent's.
            output_schema (None | RunnerOutputSchemaType0 | Unset):
            project_id (None | str | Unset):
            system_prompt_overlay (None | str | Unset):
            tool_profile (None | str | Unset):
            webhook_secret (None | str | Unset): `whsec_` and base64: the Standard Webhooks key of its deliveries.
    """

    agent_id: UUID
    client_tools: list[RunnerClientToolsItem]
    created_at: datetime.datetime
    id: UUID
    input_schema: RunnerInputSchema
    instructions: str
    max_concurrent_runs: int
    max_queued_runs: int
    metadata: RunnerMetadata
    name: str
    org_id: UUID
    output_mode: OutputMode
    resume_timeout_secs: int
    updated_at: datetime.datetime
    version: int
    completion_webhook: CompletionWebhook | None | Unset = UNSET
    description: None | str | Unset = UNSET
    model: None | str | Unset = UNSET
    output_schema: None | RunnerOutputSchemaType0 | Unset = UNSET
    project_id: None | str | Unset = UNSET
    system_prompt_overlay: None | str | Unset = UNSET
    tool_profile: None | str | Unset = UNSET
    webhook_secret: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.completion_webhook import CompletionWebhook
        from ..models.runner_output_schema_type_0 import RunnerOutputSchemaType0

        agent_id = str(self.agent_id)

        client_tools = []
        for client_tools_item_data in self.client_tools:
            client_tools_item = client_tools_item_data.to_dict()
            client_tools.append(client_tools_item)

        created_at = self.created_at.isoformat()

        id = str(self.id)

        input_schema = self.input_schema.to_dict()

        instructions = self.instructions

        max_concurrent_runs = self.max_concurrent_runs

        max_queued_runs = self.max_queued_runs

        metadata = self.metadata.to_dict()

        name = self.name

        org_id = str(self.org_id)

        output_mode = self.output_mode.value

        resume_timeout_secs = self.resume_timeout_secs

        updated_at = self.updated_at.isoformat()

        version = self.version

        completion_webhook: dict[str, Any] | None | Unset
        if isinstance(self.completion_webhook, Unset):
            completion_webhook = UNSET
        elif isinstance(self.completion_webhook, CompletionWebhook):
            completion_webhook = self.completion_webhook.to_dict()
        else:
            completion_webhook = self.completion_webhook

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        output_schema: dict[str, Any] | None | Unset
        if isinstance(self.output_schema, Unset):
            output_schema = UNSET
        elif isinstance(self.output_schema, RunnerOutputSchemaType0):
            output_schema = self.output_schema.to_dict()
        else:
            output_schema = self.output_schema

        project_id: None | str | Unset
        if isinstance(self.project_id, Unset):
            project_id = UNSET
        else:
            project_id = self.project_id

        system_prompt_overlay: None | str | Unset
        if isinstance(self.system_prompt_overlay, Unset):
            system_prompt_overlay = UNSET
        else:
            system_prompt_overlay = self.system_prompt_overlay

        tool_profile: None | str | Unset
        if isinstance(self.tool_profile, Unset):
            tool_profile = UNSET
        else:
            tool_profile = self.tool_profile

        webhook_secret: None | str | Unset
        if isinstance(self.webhook_secret, Unset):
            webhook_secret = UNSET
        else:
            webhook_secret = self.webhook_secret

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "client_tools": client_tools,
                "created_at": created_at,
                "id": id,
                "input_schema": input_schema,
                "instructions": instructions,
                "max_concurrent_runs": max_concurrent_runs,
                "max_queued_runs": max_queued_runs,
                "metadata": metadata,
                "name": name,
                "org_id": org_id,
                "output_mode": output_mode,
                "resume_timeout_secs": resume_timeout_secs,
                "updated_at": updated_at,
                "version": version,
            }
        )
        if completion_webhook is not UNSET:
            field_dict["completion_webhook"] = completion_webhook
        if description is not UNSET:
            field_dict["description"] = description
        if model is not UNSET:
            field_dict["model"] = model
        if output_schema is not UNSET:
            field_dict["output_schema"] = output_schema
        if project_id is not UNSET:
            field_dict["project_id"] = project_id
        if system_prompt_overlay is not UNSET:
            field_dict["system_prompt_overlay"] = system_prompt_overlay
        if tool_profile is not UNSET:
            field_dict["tool_profile"] = tool_profile
        if webhook_secret is not UNSET:
            field_dict["webhook_secret"] = webhook_secret

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.completion_webhook import CompletionWebhook
        from ..models.runner_client_tools_item import RunnerClientToolsItem
        from ..models.runner_input_schema import RunnerInputSchema
        from ..models.runner_metadata import RunnerMetadata
        from ..models.runner_output_schema_type_0 import RunnerOutputSchemaType0

        d = dict(src_dict)
        agent_id = UUID(d.pop("agent_id"))

        client_tools = []
        _client_tools = d.pop("client_tools")
        for client_tools_item_data in _client_tools:
            client_tools_item = RunnerClientToolsItem.from_dict(client_tools_item_data)

            client_tools.append(client_tools_item)

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        input_schema = RunnerInputSchema.from_dict(d.pop("input_schema"))

        instructions = d.pop("instructions")

        max_concurrent_runs = d.pop("max_concurrent_runs")

        max_queued_runs = d.pop("max_queued_runs")

        metadata = RunnerMetadata.from_dict(d.pop("metadata"))

        name = d.pop("name")

        org_id = UUID(d.pop("org_id"))

        output_mode = OutputMode(d.pop("output_mode"))

        resume_timeout_secs = d.pop("resume_timeout_secs")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        version = d.pop("version")

        def _parse_completion_webhook(data: object) -> CompletionWebhook | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                completion_webhook_type_0 = CompletionWebhook.from_dict(data)

                return completion_webhook_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CompletionWebhook | None | Unset, data)

        completion_webhook = _parse_completion_webhook(d.pop("completion_webhook", UNSET))

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model = _parse_model(d.pop("model", UNSET))

        def _parse_output_schema(data: object) -> None | RunnerOutputSchemaType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                output_schema_type_0 = RunnerOutputSchemaType0.from_dict(data)

                return output_schema_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RunnerOutputSchemaType0 | Unset, data)

        output_schema = _parse_output_schema(d.pop("output_schema", UNSET))

        def _parse_project_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        project_id = _parse_project_id(d.pop("project_id", UNSET))

        def _parse_system_prompt_overlay(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        system_prompt_overlay = _parse_system_prompt_overlay(d.pop("system_prompt_overlay", UNSET))

        def _parse_tool_profile(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tool_profile = _parse_tool_profile(d.pop("tool_profile", UNSET))

        def _parse_webhook_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        webhook_secret = _parse_webhook_secret(d.pop("webhook_secret", UNSET))

        runner_with_secret = cls(
            agent_id=agent_id,
            client_tools=client_tools,
            created_at=created_at,
            id=id,
            input_schema=input_schema,
            instructions=instructions,
            max_concurrent_runs=max_concurrent_runs,
            max_queued_runs=max_queued_runs,
            metadata=metadata,
            name=name,
            org_id=org_id,
            output_mode=output_mode,
            resume_timeout_secs=resume_timeout_secs,
            updated_at=updated_at,
            version=version,
            completion_webhook=completion_webhook,
            description=description,
            model=model,
            output_schema=output_schema,
            project_id=project_id,
            system_prompt_overlay=system_prompt_overlay,
            tool_profile=tool_profile,
            webhook_secret=webhook_secret,
        )

        runner_with_secret.additional_properties = d
        return runner_with_secret

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
