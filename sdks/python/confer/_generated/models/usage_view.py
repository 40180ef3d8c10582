from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.usage_purpose import UsagePurpose
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.usage_view_iterations_type_0_item import UsageViewIterationsType0Item
    from ..models.usage_view_metadata import UsageViewMetadata


T = TypeVar("T", bound="UsageView")


@_attrs_define
class UsageView:
    """A usage record as returned.

    Attributes:
        agent_id (str):
        cache_read_tokens (int): Of the input, read from the vendor's prompt cache.
        cache_write_tokens (int): Of the input, written to the vendor's prompt cache.
        created_at (str):
        id (str):
        input_tokens (int): Every prompt token the vendor counted, cached ones included.
        key_source (str):
        metadata (UsageViewMetadata):
        model (str):
        org_id (str):
        output_tokens (int):
        provider (str):
        purpose (UsagePurpose): What a model call was for (`compaction.md`).
        stopped (bool):
        compacted (bool | Unset): The vendor compacted the context in this call.
        depth (int | None | Unset):
        estimated (bool | Unset):
        iterations (list[UsageViewIterationsType0Item] | None | Unset): The vendor's per-iteration usage of such a call,
            as reported.
        message_id (None | str | Unset):
        parent_thread_id (None | str | Unset): A delegated turn's call (`agent-extras.md` §3): the calling thread,
            the root's and the depth (absent elsewhere).
        root_thread_id (None | str | Unset):
        step (int | None | Unset): Which model call of its send (absent on records older than steps).
        thread_id (None | str | Unset): `null` for a call outside any thread (`purpose: "suggestions"`).
    """

    agent_id: str
    cache_read_tokens: int
    cache_write_tokens: int
    created_at: str
    id: str
    input_tokens: int
    key_source: str
    metadata: UsageViewMetadata
    model: str
    org_id: str
    output_tokens: int
    provider: str
    purpose: UsagePurpose
    stopped: bool
    compacted: bool | Unset = UNSET
    depth: int | None | Unset = UNSET
    estimated: bool | Unset = UNSET
    iterations: list[UsageViewIterationsType0Item] | None | Unset = UNSET
    message_id: None | str | Unset = UNSET
    parent_thread_id: None | str | Unset = UNSET
    root_thread_id: None | str | Unset = UNSET
    step: int | None | Unset = UNSET
    thread_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        cache_read_tokens = self.cache_read_tokens

        cache_write_tokens = self.cache_write_tokens

        created_at = self.created_at

        id = self.id

        input_tokens = self.input_tokens

        key_source = self.key_source

        metadata = self.metadata.to_dict()

        model = self.model

        org_id = self.org_id

        output_tokens = self.output_tokens

        provider = self.provider

        purpose = self.purpose.value

        stopped = self.stopped

        compacted = self.compacted

        depth: int | None | Unset
        if isinstance(self.depth, Unset):
            depth = UNSET
        else:
            depth = self.depth

        estimated = self.estimated

        iterations: list[dict[str, Any]] | None | Unset
        if isinstance(self.iterations, Unset):
            iterations = UNSET
        elif isinstance(self.iterations, list):
            iterations = []
            for iterations_type_0_item_data in self.iterations:
                iterations_type_0_item = iterations_type_0_item_data.to_dict()
                iterations.append(iterations_type_0_item)

        else:
            iterations = self.iterations

        message_id: None | str | Unset
        if isinstance(self.message_id, Unset):
            message_id = UNSET
        else:
            message_id = self.message_id

        parent_thread_id: None | str | Unset
        if isinstance(self.parent_thread_id, Unset):
            parent_thread_id = UNSET
        else:
            parent_thread_id = self.parent_thread_id

        root_thread_id: None | str | Unset
        if isinstance(self.root_thread_id, Unset):
            root_thread_id = UNSET
        else:
            root_thread_id = self.root_thread_id

        step: int | None | Unset
        if isinstance(self.step, Unset):
            step = UNSET
        else:
            step = self.step

        thread_id: None | str | Unset
        if isinstance(self.thread_id, Unset):
            thread_id = UNSET
        else:
            thread_id = self.thread_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "cache_read_tokens": cache_read_tokens,
                "cache_write_tokens": cache_write_tokens,
                "created_at": created_at,
                "id": id,
                "input_tokens": input_tokens,
                "key_source": key_source,
                "metadata": metadata,
                "model": model,
                "org_id": org_id,
                "output_tokens": output_tokens,
                "provider": provider,
                "purpose": purpose,
                "stopped": stopped,
            }
        )
        if compacted is not UNSET:
            field_dict["compacted"] = compacted
        if depth is not UNSET:
            field_dict["depth"] = depth
        if estimated is not UNSET:
            field_dict["estimated"] = estimated
        if iterations is not UNSET:
            field_dict["iterations"] = iterations
        if message_id is not UNSET:
            field_dict["message_id"] = message_id
        if parent_thread_id is not UNSET:
            field_dict["parent_thread_id"] = parent_thread_id
        if root_thread_id is not UNSET:
            field_dict["root_thread_id"] = root_thread_id
        if step is not UNSET:
            field_dict["step"] = step
        if thread_id is not UNSET:
            field_dict["thread_id"] = thread_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.usage_view_iterations_type_0_item import UsageViewIterationsType0Item
        from ..models.usage_view_metadata import UsageViewMetadata

        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        cache_read_tokens = d.pop("cache_read_tokens")

        cache_write_tokens = d.pop("cache_write_tokens")

        created_at = d.pop("created_at")

        id = d.pop("id")

        input_tokens = d.pop("input_tokens")

        key_source = d.pop("key_source")

        metadata = UsageViewMetadata.from_dict(d.pop("metadata"))

        model = d.pop("model")

        org_id = d.pop("org_id")

        output_tokens = d.pop("output_tokens")

        provider = d.pop("provider")

        purpose = UsagePurpose(d.pop("purpose"))

        stopped = d.pop("stopped")

        compacted = d.pop("compacted", UNSET)

        def _parse_depth(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        depth = _parse_depth(d.pop("depth", UNSET))

        estimated = d.pop("estimated", UNSET)

        def _parse_iterations(data: object) -> list[UsageViewIterationsType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                iterations_type_0 = []
                _iterations_type_0 = data
                for iterations_type_0_item_data in _iterations_type_0:
                    iterations_type_0_item = UsageViewIterationsType0Item.from_dict(
                        iterations_type_0_item_data
                    )

                    iterations_type_0.append(iterations_type_0_item)

                return iterations_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[UsageViewIterationsType0Item] | None | Unset, data)

        iterations = _parse_iterations(d.pop("iterations", UNSET))

        def _parse_message_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        message_id = _parse_message_id(d.pop("message_id", UNSET))

        def _parse_parent_thread_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        parent_thread_id = _parse_parent_thread_id(d.pop("parent_thread_id", UNSET))

        def _parse_root_thread_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        root_thread_id = _parse_root_thread_id(d.pop("root_thread_id", UNSET))

        def _parse_step(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        step = _parse_step(d.pop("step", UNSET))

        def _parse_thread_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        thread_id = _parse_thread_id(d.pop("thread_id", UNSET))

        usage_view = cls(
            agent_id=agent_id,
            cache_read_tokens=cache_read_tokens,
            cache_write_tokens=cache_write_tokens,
            created_at=created_at,
            id=id,
            input_tokens=input_tokens,
            key_source=key_source,
            metadata=metadata,
            model=model,
            org_id=org_id,
            output_tokens=output_tokens,
            provider=provider,
            purpose=purpose,
            stopped=stopped,
            compacted=compacted,
            depth=depth,
            estimated=estimated,
            iterations=iterations,
            message_id=message_id,
            parent_thread_id=parent_thread_id,
            root_thread_id=root_thread_id,
            step=step,
            thread_id=thread_id,
        )

        usage_view.additional_properties = d
        return usage_view

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
