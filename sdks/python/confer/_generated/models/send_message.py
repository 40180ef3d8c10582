from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.if_busy_body import IfBusyBody
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.anthropic_overrides import AnthropicOverrides
    from ..models.open_ai_overrides import OpenAiOverrides
    from ..models.send_message_metadata_type_0 import SendMessageMetadataType0
    from ..models.tool_definition import ToolDefinition
    from ..models.tool_result_body import ToolResultBody


T = TypeVar("T", bound="SendMessage")


@_attrs_define
class SendMessage:
    """`POST .../messages` body (serialized only to hash a keyed send).

    Attributes:
        content (str):
        anthropic_overrides (AnthropicOverrides | None | Unset):
        if_busy (IfBusyBody | None | Unset):
        metadata (None | SendMessageMetadataType0 | Unset):
        model_override (None | str | Unset):
        openai_overrides (None | OpenAiOverrides | Unset):
        sender_id (None | str | Unset):
        sender_name (None | str | Unset):
        stream_thinking (bool | None | Unset): Relay the model's thinking as `thinking` events (default false).
        stream_tool_output (bool | None | Unset): Stream a computer command's output as `tool_output` events while
            it runs (default false; `computer.md` §3).
        system_prompt_overlay (list[str] | None | str | Unset):
        tool_profile (None | str | Unset):
        tool_results (list[ToolResultBody] | None | Unset):
        tools (list[ToolDefinition] | None | Unset):
    """

    content: str
    anthropic_overrides: AnthropicOverrides | None | Unset = UNSET
    if_busy: IfBusyBody | None | Unset = UNSET
    metadata: None | SendMessageMetadataType0 | Unset = UNSET
    model_override: None | str | Unset = UNSET
    openai_overrides: None | OpenAiOverrides | Unset = UNSET
    sender_id: None | str | Unset = UNSET
    sender_name: None | str | Unset = UNSET
    stream_thinking: bool | None | Unset = UNSET
    stream_tool_output: bool | None | Unset = UNSET
    system_prompt_overlay: list[str] | None | str | Unset = UNSET
    tool_profile: None | str | Unset = UNSET
    tool_results: list[ToolResultBody] | None | Unset = UNSET
    tools: list[ToolDefinition] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.anthropic_overrides import AnthropicOverrides
        from ..models.open_ai_overrides import OpenAiOverrides
        from ..models.send_message_metadata_type_0 import SendMessageMetadataType0

        content = self.content

        anthropic_overrides: dict[str, Any] | None | Unset
        if isinstance(self.anthropic_overrides, Unset):
            anthropic_overrides = UNSET
        elif isinstance(self.anthropic_overrides, AnthropicOverrides):
            anthropic_overrides = self.anthropic_overrides.to_dict()
        else:
            anthropic_overrides = self.anthropic_overrides

        if_busy: None | str | Unset
        if isinstance(self.if_busy, Unset):
            if_busy = UNSET
        elif isinstance(self.if_busy, IfBusyBody):
            if_busy = self.if_busy.value
        else:
            if_busy = self.if_busy

        metadata: dict[str, Any] | None | Unset
        if isinstance(self.metadata, Unset):
            metadata = UNSET
        elif isinstance(self.metadata, SendMessageMetadataType0):
            metadata = self.metadata.to_dict()
        else:
            metadata = self.metadata

        model_override: None | str | Unset
        if isinstance(self.model_override, Unset):
            model_override = UNSET
        else:
            model_override = self.model_override

        openai_overrides: dict[str, Any] | None | Unset
        if isinstance(self.openai_overrides, Unset):
            openai_overrides = UNSET
        elif isinstance(self.openai_overrides, OpenAiOverrides):
            openai_overrides = self.openai_overrides.to_dict()
        else:
            openai_overrides = self.openai_overrides

        sender_id: None | str | Unset
        if isinstance(self.sender_id, Unset):
            sender_id = UNSET
        else:
            sender_id = self.sender_id

        sender_name: None | str | Unset
        if isinstance(self.sender_name, Unset):
            sender_name = UNSET
        else:
            sender_name = self.sender_name

        stream_thinking: bool | None | Unset
        if isinstance(self.stream_thinking, Unset):
            stream_thinking = UNSET
        else:
            stream_thinking = self.stream_thinking

        stream_tool_output: bool | None | Unset
        if isinstance(self.stream_tool_output, Unset):
            stream_tool_output = UNSET
        else:
            stream_tool_output = self.stream_tool_output

        system_prompt_overlay: list[str] | None | str | Unset
        if isinstance(self.system_prompt_overlay, Unset):
            system_prompt_overlay = UNSET
        elif isinstance(self.system_prompt_overlay, list):
            system_prompt_overlay = self.system_prompt_overlay

        else:
            system_prompt_overlay = self.system_prompt_overlay

        tool_profile: None | str | Unset
        if isinstance(self.tool_profile, Unset):
            tool_profile = UNSET
        else:
            tool_profile = self.tool_profile

        tool_results: list[dict[str, Any]] | None | Unset
        if isinstance(self.tool_results, Unset):
            tool_results = UNSET
        elif isinstance(self.tool_results, list):
            tool_results = []
            for tool_results_type_0_item_data in self.tool_results:
                tool_results_type_0_item = tool_results_type_0_item_data.to_dict()
                tool_results.append(tool_results_type_0_item)

        else:
            tool_results = self.tool_results

        tools: list[dict[str, Any]] | None | Unset
        if isinstance(self.tools, Unset):
            tools = UNSET
        elif isinstance(self.tools, list):
            tools = []
            for tools_type_0_item_data in self.tools:
                tools_type_0_item = tools_type_0_item_data.to_dict()
                tools.append(tools_type_0_item)

        else:
            tools = self.tools

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content": content,
            }
        )
        if anthropic_overrides is not UNSET:
            field_dict["anthropicOverrides"] = anthropic_overrides
        if if_busy is not UNSET:
            field_dict["ifBusy"] = if_busy
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if model_override is not UNSET:
            field_dict["modelOverride"] = model_override
        if openai_overrides is not UNSET:
            field_dict["openaiOverrides"] = openai_overrides
        if sender_id is not UNSET:
            field_dict["senderId"] = sender_id
        if sender_name is not UNSET:
            field_dict["senderName"] = sender_name
        if stream_thinking is not UNSET:
            field_dict["streamThinking"] = stream_thinking
        if stream_tool_output is not UNSET:
            field_dict["streamToolOutput"] = stream_tool_output
        if system_prompt_overlay is not UNSET:
            field_dict["systemPromptOverlay"] = system_prompt_overlay
        if tool_profile is not UNSET:
            field_dict["toolProfile"] = tool_profile
        if tool_results is not UNSET:
            field_dict["toolResults"] = tool_results
        if tools is not UNSET:
            field_dict["tools"] = tools

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.anthropic_overrides import AnthropicOverrides
        from ..models.open_ai_overrides import OpenAiOverrides
        from ..models.send_message_metadata_type_0 import SendMessageMetadataType0
        from ..models.tool_definition import ToolDefinition
        from ..models.tool_result_body import ToolResultBody

        d = dict(src_dict)
        content = d.pop("content")

        def _parse_anthropic_overrides(data: object) -> AnthropicOverrides | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                anthropic_overrides_type_0 = AnthropicOverrides.from_dict(data)

                return anthropic_overrides_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AnthropicOverrides | None | Unset, data)

        anthropic_overrides = _parse_anthropic_overrides(d.pop("anthropicOverrides", UNSET))

        def _parse_if_busy(data: object) -> IfBusyBody | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                if_busy_type_0 = IfBusyBody(data)

                return if_busy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(IfBusyBody | None | Unset, data)

        if_busy = _parse_if_busy(d.pop("ifBusy", UNSET))

        def _parse_metadata(data: object) -> None | SendMessageMetadataType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_0 = SendMessageMetadataType0.from_dict(data)

                return metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SendMessageMetadataType0 | Unset, data)

        metadata = _parse_metadata(d.pop("metadata", UNSET))

        def _parse_model_override(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model_override = _parse_model_override(d.pop("modelOverride", UNSET))

        def _parse_openai_overrides(data: object) -> None | OpenAiOverrides | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                openai_overrides_type_0 = OpenAiOverrides.from_dict(data)

                return openai_overrides_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OpenAiOverrides | Unset, data)

        openai_overrides = _parse_openai_overrides(d.pop("openaiOverrides", UNSET))

        def _parse_sender_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        sender_id = _parse_sender_id(d.pop("senderId", UNSET))

        def _parse_sender_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        sender_name = _parse_sender_name(d.pop("senderName", UNSET))

        def _parse_stream_thinking(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        stream_thinking = _parse_stream_thinking(d.pop("streamThinking", UNSET))

        def _parse_stream_tool_output(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        stream_tool_output = _parse_stream_tool_output(d.pop("streamToolOutput", UNSET))

        def _parse_system_prompt_overlay(data: object) -> list[str] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                componentsschemas_overlay_type_1 = cast(list[str], data)

                return componentsschemas_overlay_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | str | Unset, data)

        system_prompt_overlay = _parse_system_prompt_overlay(d.pop("systemPromptOverlay", UNSET))

        def _parse_tool_profile(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tool_profile = _parse_tool_profile(d.pop("toolProfile", UNSET))

        def _parse_tool_results(data: object) -> list[ToolResultBody] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tool_results_type_0 = []
                _tool_results_type_0 = data
                for tool_results_type_0_item_data in _tool_results_type_0:
                    tool_results_type_0_item = ToolResultBody.from_dict(
                        tool_results_type_0_item_data
                    )

                    tool_results_type_0.append(tool_results_type_0_item)

                return tool_results_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ToolResultBody] | None | Unset, data)

        tool_results = _parse_tool_results(d.pop("toolResults", UNSET))

        def _parse_tools(data: object) -> list[ToolDefinition] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tools_type_0 = []
                _tools_type_0 = data
                for tools_type_0_item_data in _tools_type_0:
                    tools_type_0_item = ToolDefinition.from_dict(tools_type_0_item_data)

                    tools_type_0.append(tools_type_0_item)

                return tools_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ToolDefinition] | None | Unset, data)

        tools = _parse_tools(d.pop("tools", UNSET))

        send_message = cls(
            content=content,
            anthropic_overrides=anthropic_overrides,
            if_busy=if_busy,
            metadata=metadata,
            model_override=model_override,
            openai_overrides=openai_overrides,
            sender_id=sender_id,
            sender_name=sender_name,
            stream_thinking=stream_thinking,
            stream_tool_output=stream_tool_output,
            system_prompt_overlay=system_prompt_overlay,
            tool_profile=tool_profile,
            tool_results=tool_results,
            tools=tools,
        )

        send_message.additional_properties = d
        return send_message

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
