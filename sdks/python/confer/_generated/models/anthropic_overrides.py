from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.cache_body import CacheBody
    from ..models.thinking_body import ThinkingBody


T = TypeVar("T", bound="AnthropicOverrides")


@_attrs_define
class AnthropicOverrides:
    """`anthropicOverrides`: options for vendor A models.

    Attributes:
        cache (CacheBody | None | Unset):
        fallback_models (list[str] | None | Unset): Models tried in order when the model fails before its first token
            (unknown, refused, rate limited or down); any provider's.
        thinking (None | ThinkingBody | Unset):
    """

    cache: CacheBody | None | Unset = UNSET
    fallback_models: list[str] | None | Unset = UNSET
    thinking: None | ThinkingBody | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.cache_body import CacheBody
        from ..models.thinking_body import ThinkingBody

        cache: dict[str, Any] | None | Unset
        if isinstance(self.cache, Unset):
            cache = UNSET
        elif isinstance(self.cache, CacheBody):
            cache = self.cache.to_dict()
        else:
            cache = self.cache

        fallback_models: list[str] | None | Unset
        if isinstance(self.fallback_models, Unset):
            fallback_models = UNSET
        elif isinstance(self.fallback_models, list):
            fallback_models = self.fallback_models

        else:
            fallback_models = self.fallback_models

        thinking: dict[str, Any] | None | Unset
        if isinstance(self.thinking, Unset):
            thinking = UNSET
        elif isinstance(self.thinking, ThinkingBody):
            thinking = self.thinking.to_dict()
        else:
            thinking = self.thinking

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if cache is not UNSET:
            field_dict["cache"] = cache
        if fallback_models is not UNSET:
            field_dict["fallbackModels"] = fallback_models
        if thinking is not UNSET:
            field_dict["thinking"] = thinking

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.cache_body import CacheBody
        from ..models.thinking_body import ThinkingBody

        d = dict(src_dict)

        def _parse_cache(data: object) -> CacheBody | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                cache_type_0 = CacheBody.from_dict(data)

                return cache_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CacheBody | None | Unset, data)

        cache = _parse_cache(d.pop("cache", UNSET))

        def _parse_fallback_models(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                fallback_models_type_0 = cast(list[str], data)

                return fallback_models_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        fallback_models = _parse_fallback_models(d.pop("fallbackModels", UNSET))

        def _parse_thinking(data: object) -> None | ThinkingBody | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                thinking_type_0 = ThinkingBody.from_dict(data)

                return thinking_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ThinkingBody | Unset, data)

        thinking = _parse_thinking(d.pop("thinking", UNSET))

        anthropic_overrides = cls(
            cache=cache,
            fallback_models=fallback_models,
            thinking=thinking,
        )

        return anthropic_overrides
