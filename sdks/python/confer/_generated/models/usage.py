from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.delegated_usage import DelegatedUsage


T = TypeVar("T", bound="Usage")


@_attrs_define
class Usage:
    """Token counts of a turn, as the `done` event reports them.

    Attributes:
        input_tokens (int): Every prompt token the vendors counted, cached ones included.
        output_tokens (int):
        cache_read_tokens (int | Unset): Of the input, tokens read from the vendors' prompt caches (0 when
            they reported none).
        cache_write_tokens (int | Unset): Of the input, tokens written to the vendors' prompt caches.
        delegated (DelegatedUsage | None | Unset):
        model (None | str | Unset): The model that answered (a fallback model when one replaced the
            send's); absent on records written before fallback models.
        steps (int | None | Unset): Model calls the send made (tool steps and the forced last call
            included); absent on records written before multi-step turns.
    """

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int | Unset = UNSET
    cache_write_tokens: int | Unset = UNSET
    delegated: DelegatedUsage | None | Unset = UNSET
    model: None | str | Unset = UNSET
    steps: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.delegated_usage import DelegatedUsage

        input_tokens = self.input_tokens

        output_tokens = self.output_tokens

        cache_read_tokens = self.cache_read_tokens

        cache_write_tokens = self.cache_write_tokens

        delegated: dict[str, Any] | None | Unset
        if isinstance(self.delegated, Unset):
            delegated = UNSET
        elif isinstance(self.delegated, DelegatedUsage):
            delegated = self.delegated.to_dict()
        else:
            delegated = self.delegated

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        steps: int | None | Unset
        if isinstance(self.steps, Unset):
            steps = UNSET
        else:
            steps = self.steps

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "inputTokens": input_tokens,
                "outputTokens": output_tokens,
            }
        )
        if cache_read_tokens is not UNSET:
            field_dict["cacheReadTokens"] = cache_read_tokens
        if cache_write_tokens is not UNSET:
            field_dict["cacheWriteTokens"] = cache_write_tokens
        if delegated is not UNSET:
            field_dict["delegated"] = delegated
        if model is not UNSET:
            field_dict["model"] = model
        if steps is not UNSET:
            field_dict["steps"] = steps

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.delegated_usage import DelegatedUsage

        d = dict(src_dict)
        input_tokens = d.pop("inputTokens")

        output_tokens = d.pop("outputTokens")

        cache_read_tokens = d.pop("cacheReadTokens", UNSET)

        cache_write_tokens = d.pop("cacheWriteTokens", UNSET)

        def _parse_delegated(data: object) -> DelegatedUsage | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                delegated_type_0 = DelegatedUsage.from_dict(data)

                return delegated_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DelegatedUsage | None | Unset, data)

        delegated = _parse_delegated(d.pop("delegated", UNSET))

        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model = _parse_model(d.pop("model", UNSET))

        def _parse_steps(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        steps = _parse_steps(d.pop("steps", UNSET))

        usage = cls(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            cache_read_tokens=cache_read_tokens,
            cache_write_tokens=cache_write_tokens,
            delegated=delegated,
            model=model,
            steps=steps,
        )

        usage.additional_properties = d
        return usage

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
