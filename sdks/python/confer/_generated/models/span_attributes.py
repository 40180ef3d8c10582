from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="SpanAttributes")


@_attrs_define
class SpanAttributes:
    """A span's attributes (those of its kind; absent ones are left out).

    Attributes:
        bytes_ (int | None | Unset):
        child_trace_id (None | Unset | UUID): A delegate call's: the trace of the turn it ran.
        finish_reason (None | str | Unset):
        if_busy (None | str | Unset):
        input_tokens (int | None | Unset):
        is_error (bool | None | Unset):
        key_source (None | str | Unset):
        method (None | str | Unset):
        model (None | str | Unset):
        output_tokens (int | None | Unset):
        provider (None | str | Unset):
        rpc_error (None | str | Unset):
        status_code (int | None | Unset):
        step (int | None | Unset):
        tool_call_id (None | str | Unset):
        tool_kind (None | str | Unset):
        tool_name (None | str | Unset):
        ttft_ms (float | None | Unset):
        turn (int | None | Unset):
    """

    bytes_: int | None | Unset = UNSET
    child_trace_id: None | Unset | UUID = UNSET
    finish_reason: None | str | Unset = UNSET
    if_busy: None | str | Unset = UNSET
    input_tokens: int | None | Unset = UNSET
    is_error: bool | None | Unset = UNSET
    key_source: None | str | Unset = UNSET
    method: None | str | Unset = UNSET
    model: None | str | Unset = UNSET
    output_tokens: int | None | Unset = UNSET
    provider: None | str | Unset = UNSET
    rpc_error: None | str | Unset = UNSET
    status_code: int | None | Unset = UNSET
    step: int | None | Unset = UNSET
    tool_call_id: None | str | Unset = UNSET
    tool_kind: None | str | Unset = UNSET
    tool_name: None | str | Unset = UNSET
    ttft_ms: float | None | Unset = UNSET
    turn: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bytes_: int | None | Unset
        if isinstance(self.bytes_, Unset):
            bytes_ = UNSET
        else:
            bytes_ = self.bytes_

        child_trace_id: None | str | Unset
        if isinstance(self.child_trace_id, Unset):
            child_trace_id = UNSET
        elif isinstance(self.child_trace_id, UUID):
            child_trace_id = str(self.child_trace_id)
        else:
            child_trace_id = self.child_trace_id

        finish_reason: None | str | Unset
        if isinstance(self.finish_reason, Unset):
            finish_reason = UNSET
        else:
            finish_reason = self.finish_reason

        if_busy: None | str | Unset
        if isinstance(self.if_busy, Unset):
            if_busy = UNSET
        else:
            if_busy = self.if_busy

        input_tokens: int | None | Unset
        if isinstance(self.input_tokens, Unset):
            input_tokens = UNSET
        else:
            input_tokens = self.input_tokens

        is_error: bool | None | Unset
        if isinstance(self.is_error, Unset):
            is_error = UNSET
        else:
            is_error = self.is_error

        key_source: None | str | Unset
        if isinstance(self.key_source, Unset):
            key_source = UNSET
        else:
            key_source = self.key_source

        method: None | str | Unset
        if isinstance(self.method, Unset):
            method = UNSET
        else:
            method = self.method

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        output_tokens: int | None | Unset
        if isinstance(self.output_tokens, Unset):
            output_tokens = UNSET
        else:
            output_tokens = self.output_tokens

        provider: None | str | Unset
        if isinstance(self.provider, Unset):
            provider = UNSET
        else:
            provider = self.provider

        rpc_error: None | str | Unset
        if isinstance(self.rpc_error, Unset):
            rpc_error = UNSET
        else:
            rpc_error = self.rpc_error

        status_code: int | None | Unset
        if isinstance(self.status_code, Unset):
            status_code = UNSET
        else:
            status_code = self.status_code

        step: int | None | Unset
        if isinstance(self.step, Unset):
            step = UNSET
        else:
            step = self.step

        tool_call_id: None | str | Unset
        if isinstance(self.tool_call_id, Unset):
            tool_call_id = UNSET
        else:
            tool_call_id = self.tool_call_id

        tool_kind: None | str | Unset
        if isinstance(self.tool_kind, Unset):
            tool_kind = UNSET
        else:
            tool_kind = self.tool_kind

        tool_name: None | str | Unset
        if isinstance(self.tool_name, Unset):
            tool_name = UNSET
        else:
            tool_name = self.tool_name

        ttft_ms: float | None | Unset
        if isinstance(self.ttft_ms, Unset):
            ttft_ms = UNSET
        else:
            ttft_ms = self.ttft_ms

        turn: int | None | Unset
        if isinstance(self.turn, Unset):
            turn = UNSET
        else:
            turn = self.turn

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if bytes_ is not UNSET:
            field_dict["bytes"] = bytes_
        if child_trace_id is not UNSET:
            field_dict["child_trace_id"] = child_trace_id
        if finish_reason is not UNSET:
            field_dict["finish_reason"] = finish_reason
        if if_busy is not UNSET:
            field_dict["if_busy"] = if_busy
        if input_tokens is not UNSET:
            field_dict["input_tokens"] = input_tokens
        if is_error is not UNSET:
            field_dict["is_error"] = is_error
        if key_source is not UNSET:
            field_dict["key_source"] = key_source
        if method is not UNSET:
            field_dict["method"] = method
        if model is not UNSET:
            field_dict["model"] = model
        if output_tokens is not UNSET:
            field_dict["output_tokens"] = output_tokens
        if provider is not UNSET:
            field_dict["provider"] = provider
        if rpc_error is not UNSET:
            field_dict["rpc_error"] = rpc_error
        if status_code is not UNSET:
            field_dict["status_code"] = status_code
        if step is not UNSET:
            field_dict["step"] = step
        if tool_call_id is not UNSET:
            field_dict["tool_call_id"] = tool_call_id
        if tool_kind is not UNSET:
            field_dict["tool_kind"] = tool_kind
        if tool_name is not UNSET:
            field_dict["tool_name"] = tool_name
        if ttft_ms is not UNSET:
            field_dict["ttft_ms"] = ttft_ms
        if turn is not UNSET:
            field_dict["turn"] = turn

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_bytes_(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        bytes_ = _parse_bytes_(d.pop("bytes", UNSET))

        def _parse_child_trace_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                child_trace_id_type_0 = UUID(data)

                return child_trace_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        child_trace_id = _parse_child_trace_id(d.pop("child_trace_id", UNSET))

        def _parse_finish_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        finish_reason = _parse_finish_reason(d.pop("finish_reason", UNSET))

        def _parse_if_busy(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        if_busy = _parse_if_busy(d.pop("if_busy", UNSET))

        def _parse_input_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        input_tokens = _parse_input_tokens(d.pop("input_tokens", UNSET))

        def _parse_is_error(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        is_error = _parse_is_error(d.pop("is_error", UNSET))

        def _parse_key_source(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        key_source = _parse_key_source(d.pop("key_source", UNSET))

        def _parse_method(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        method = _parse_method(d.pop("method", UNSET))

        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model = _parse_model(d.pop("model", UNSET))

        def _parse_output_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        output_tokens = _parse_output_tokens(d.pop("output_tokens", UNSET))

        def _parse_provider(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        provider = _parse_provider(d.pop("provider", UNSET))

        def _parse_rpc_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        rpc_error = _parse_rpc_error(d.pop("rpc_error", UNSET))

        def _parse_status_code(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        status_code = _parse_status_code(d.pop("status_code", UNSET))

        def _parse_step(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        step = _parse_step(d.pop("step", UNSET))

        def _parse_tool_call_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tool_call_id = _parse_tool_call_id(d.pop("tool_call_id", UNSET))

        def _parse_tool_kind(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tool_kind = _parse_tool_kind(d.pop("tool_kind", UNSET))

        def _parse_tool_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tool_name = _parse_tool_name(d.pop("tool_name", UNSET))

        def _parse_ttft_ms(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        ttft_ms = _parse_ttft_ms(d.pop("ttft_ms", UNSET))

        def _parse_turn(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        turn = _parse_turn(d.pop("turn", UNSET))

        span_attributes = cls(
            bytes_=bytes_,
            child_trace_id=child_trace_id,
            finish_reason=finish_reason,
            if_busy=if_busy,
            input_tokens=input_tokens,
            is_error=is_error,
            key_source=key_source,
            method=method,
            model=model,
            output_tokens=output_tokens,
            provider=provider,
            rpc_error=rpc_error,
            status_code=status_code,
            step=step,
            tool_call_id=tool_call_id,
            tool_kind=tool_kind,
            tool_name=tool_name,
            ttft_ms=ttft_ms,
            turn=turn,
        )

        span_attributes.additional_properties = d
        return span_attributes

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
