from __future__ import annotations

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
    from ..models.runner_body_client_tools_type_0_item import RunnerBodyClientToolsType0Item
    from ..models.runner_body_input_schema_type_0 import RunnerBodyInputSchemaType0
    from ..models.runner_body_metadata_type_0 import RunnerBodyMetadataType0
    from ..models.runner_body_output_schema_type_0 import RunnerBodyOutputSchemaType0


T = TypeVar("T", bound="RunnerBody")


@_attrs_define
class RunnerBody:
    """`POST /api/runners` and `PATCH /api/runners/{id}` body: on a PATCH only
    the fields present change, and `null` clears a nullable one.

        Attributes:
            agent_id (None | Unset | UUID):
            client_tools (list[RunnerBodyClientToolsType0Item] | None | Unset):
            completion_webhook (CompletionWebhook | None | Unset):
            description (None | str | Unset):
            input_schema (None | RunnerBodyInputSchemaType0 | Unset):
            instructions (None | str | Unset): A `minijinja` template over `{input, run, now}`.
            max_concurrent_runs (int | None | Unset):
            max_queued_runs (int | None | Unset):
            metadata (None | RunnerBodyMetadataType0 | Unset):
            model (None | str | Unset):
            name (None | str | Unset):
            output_mode (None | OutputMode | Unset):
            output_schema (None | RunnerBodyOutputSchemaType0 | Unset):
            project_id (None | str | Unset):
            resume_timeout_secs (int | None | Unset):
            rotate_webhook_secret (bool | None | Unset): PATCH: a new completion secret (the old one dies at once).
            system_prompt_overlay (None | str | Unset):
            tool_profile (None | str | Unset):
    """

    agent_id: None | Unset | UUID = UNSET
    client_tools: list[RunnerBodyClientToolsType0Item] | None | Unset = UNSET
    completion_webhook: CompletionWebhook | None | Unset = UNSET
    description: None | str | Unset = UNSET
    input_schema: None | RunnerBodyInputSchemaType0 | Unset = UNSET
    instructions: None | str | Unset = UNSET
    max_concurrent_runs: int | None | Unset = UNSET
    max_queued_runs: int | None | Unset = UNSET
    metadata: None | RunnerBodyMetadataType0 | Unset = UNSET
    model: None | str | Unset = UNSET
    name: None | str | Unset = UNSET
    output_mode: None | OutputMode | Unset = UNSET
    output_schema: None | RunnerBodyOutputSchemaType0 | Unset = UNSET
    project_id: None | str | Unset = UNSET
    resume_timeout_secs: int | None | Unset = UNSET
    rotate_webhook_secret: bool | None | Unset = UNSET
    system_prompt_overlay: None | str | Unset = UNSET
    tool_profile: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.completion_webhook import CompletionWebhook
        from ..models.runner_body_input_schema_type_0 import RunnerBodyInputSchemaType0
        from ..models.runner_body_metadata_type_0 import RunnerBodyMetadataType0
        from ..models.runner_body_output_schema_type_0 import RunnerBodyOutputSchemaType0

        agent_id: None | str | Unset
        if isinstance(self.agent_id, Unset):
            agent_id = UNSET
        elif isinstance(self.agent_id, UUID):
            agent_id = str(self.agent_id)
        else:
            agent_id = self.agent_id

        client_tools: list[dict[str, Any]] | None | Unset
        if isinstance(self.client_tools, Unset):
            client_tools = UNSET
        elif isinstance(self.client_tools, list):
            client_tools = []
            for client_tools_type_0_item_data in self.client_tools:
                client_tools_type_0_item = client_tools_type_0_item_data.to_dict()
                client_tools.append(client_tools_type_0_item)

        else:
            client_tools = self.client_tools

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

        input_schema: dict[str, Any] | None | Unset
        if isinstance(self.input_schema, Unset):
            input_schema = UNSET
        elif isinstance(self.input_schema, RunnerBodyInputSchemaType0):
            input_schema = self.input_schema.to_dict()
        else:
            input_schema = self.input_schema

        instructions: None | str | Unset
        if isinstance(self.instructions, Unset):
            instructions = UNSET
        else:
            instructions = self.instructions

        max_concurrent_runs: int | None | Unset
        if isinstance(self.max_concurrent_runs, Unset):
            max_concurrent_runs = UNSET
        else:
            max_concurrent_runs = self.max_concurrent_runs

        max_queued_runs: int | None | Unset
        if isinstance(self.max_queued_runs, Unset):
            max_queued_runs = UNSET
        else:
            max_queued_runs = self.max_queued_runs

        metadata: dict[str, Any] | None | Unset
        if isinstance(self.metadata, Unset):
            metadata = UNSET
        elif isinstance(self.metadata, RunnerBodyMetadataType0):
            metadata = self.metadata.to_dict()
        else:
            metadata = self.metadata

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        output_mode: None | str | Unset
        if isinstance(self.output_mode, Unset):
            output_mode = UNSET
        elif isinstance(self.output_mode, OutputMode):
            output_mode = self.output_mode.value
        else:
            output_mode = self.output_mode

        output_schema: dict[str, Any] | None | Unset
        if isinstance(self.output_schema, Unset):
            output_schema = UNSET
        elif isinstance(self.output_schema, RunnerBodyOutputSchemaType0):
            output_schema = self.output_schema.to_dict()
        else:
            output_schema = self.output_schema

        project_id: None | str | Unset
        if isinstance(self.project_id, Unset):
            project_id = UNSET
        else:
            project_id = self.project_id

        resume_timeout_secs: int | None | Unset
        if isinstance(self.resume_timeout_secs, Unset):
            resume_timeout_secs = UNSET
        else:
            resume_timeout_secs = self.resume_timeout_secs

        rotate_webhook_secret: bool | None | Unset
        if isinstance(self.rotate_webhook_secret, Unset):
            rotate_webhook_secret = UNSET
        else:
            rotate_webhook_secret = self.rotate_webhook_secret

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

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if agent_id is not UNSET:
            field_dict["agentId"] = agent_id
        if client_tools is not UNSET:
            field_dict["clientTools"] = client_tools
        if completion_webhook is not UNSET:
            field_dict["completionWebhook"] = completion_webhook
        if description is not UNSET:
            field_dict["description"] = description
        if input_schema is not UNSET:
            field_dict["inputSchema"] = input_schema
        if instructions is not UNSET:
            field_dict["instructions"] = instructions
        if max_concurrent_runs is not UNSET:
            field_dict["maxConcurrentRuns"] = max_concurrent_runs
        if max_queued_runs is not UNSET:
            field_dict["maxQueuedRuns"] = max_queued_runs
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if model is not UNSET:
            field_dict["model"] = model
        if name is not UNSET:
            field_dict["name"] = name
        if output_mode is not UNSET:
            field_dict["outputMode"] = output_mode
        if output_schema is not UNSET:
            field_dict["outputSchema"] = output_schema
        if project_id is not UNSET:
            field_dict["projectId"] = project_id
        if resume_timeout_secs is not UNSET:
            field_dict["resumeTimeoutSecs"] = resume_timeout_secs
        if rotate_webhook_secret is not UNSET:
            field_dict["rotateWebhookSecret"] = rotate_webhook_secret
        if system_prompt_overlay is not UNSET:
            field_dict["systemPromptOverlay"] = system_prompt_overlay
        if tool_profile is not UNSET:
            field_dict["toolProfile"] = tool_profile

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.completion_webhook import CompletionWebhook
        from ..models.runner_body_client_tools_type_0_item import RunnerBodyClientToolsType0Item
        from ..models.runner_body_input_schema_type_0 import RunnerBodyInputSchemaType0
        from ..models.runner_body_metadata_type_0 import RunnerBodyMetadataType0
        from ..models.runner_body_output_schema_type_0 import RunnerBodyOutputSchemaType0

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

        def _parse_client_tools(
            data: object,
        ) -> list[RunnerBodyClientToolsType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                client_tools_type_0 = []
                _client_tools_type_0 = data
                for client_tools_type_0_item_data in _client_tools_type_0:
                    client_tools_type_0_item = RunnerBodyClientToolsType0Item.from_dict(
                        client_tools_type_0_item_data
                    )

                    client_tools_type_0.append(client_tools_type_0_item)

                return client_tools_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[RunnerBodyClientToolsType0Item] | None | Unset, data)

        client_tools = _parse_client_tools(d.pop("clientTools", UNSET))

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

        completion_webhook = _parse_completion_webhook(d.pop("completionWebhook", UNSET))

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_input_schema(data: object) -> None | RunnerBodyInputSchemaType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                input_schema_type_0 = RunnerBodyInputSchemaType0.from_dict(data)

                return input_schema_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RunnerBodyInputSchemaType0 | Unset, data)

        input_schema = _parse_input_schema(d.pop("inputSchema", UNSET))

        def _parse_instructions(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        instructions = _parse_instructions(d.pop("instructions", UNSET))

        def _parse_max_concurrent_runs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_concurrent_runs = _parse_max_concurrent_runs(d.pop("maxConcurrentRuns", UNSET))

        def _parse_max_queued_runs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_queued_runs = _parse_max_queued_runs(d.pop("maxQueuedRuns", UNSET))

        def _parse_metadata(data: object) -> None | RunnerBodyMetadataType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_0 = RunnerBodyMetadataType0.from_dict(data)

                return metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RunnerBodyMetadataType0 | Unset, data)

        metadata = _parse_metadata(d.pop("metadata", UNSET))

        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model = _parse_model(d.pop("model", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_output_mode(data: object) -> None | OutputMode | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                output_mode_type_0 = OutputMode(data)

                return output_mode_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OutputMode | Unset, data)

        output_mode = _parse_output_mode(d.pop("outputMode", UNSET))

        def _parse_output_schema(data: object) -> None | RunnerBodyOutputSchemaType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                output_schema_type_0 = RunnerBodyOutputSchemaType0.from_dict(data)

                return output_schema_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RunnerBodyOutputSchemaType0 | Unset, data)

        output_schema = _parse_output_schema(d.pop("outputSchema", UNSET))

        def _parse_project_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        project_id = _parse_project_id(d.pop("projectId", UNSET))

        def _parse_resume_timeout_secs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        resume_timeout_secs = _parse_resume_timeout_secs(d.pop("resumeTimeoutSecs", UNSET))

        def _parse_rotate_webhook_secret(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        rotate_webhook_secret = _parse_rotate_webhook_secret(d.pop("rotateWebhookSecret", UNSET))

        def _parse_system_prompt_overlay(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        system_prompt_overlay = _parse_system_prompt_overlay(d.pop("systemPromptOverlay", UNSET))

        def _parse_tool_profile(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tool_profile = _parse_tool_profile(d.pop("toolProfile", UNSET))

        runner_body = cls(
            agent_id=agent_id,
            client_tools=client_tools,
            completion_webhook=completion_webhook,
            description=description,
            input_schema=input_schema,
            instructions=instructions,
            max_concurrent_runs=max_concurrent_runs,
            max_queued_runs=max_queued_runs,
            metadata=metadata,
            model=model,
            name=name,
            output_mode=output_mode,
            output_schema=output_schema,
            project_id=project_id,
            resume_timeout_secs=resume_timeout_secs,
            rotate_webhook_secret=rotate_webhook_secret,
            system_prompt_overlay=system_prompt_overlay,
            tool_profile=tool_profile,
        )

        runner_body.additional_properties = d
        return runner_body

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
