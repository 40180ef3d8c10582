from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="OpenAiOverrides")


@_attrs_define
class OpenAiOverrides:
    """`openaiOverrides`: options for vendor B (OpenAI-compatible) models.

    Attributes:
        disabled (bool | None | Unset): Send neither `prompt_cache_key` nor `safety_identifier`.
        prompt_cache_key (None | str | Unset): Replaces the key derived from the thread (1 to 64 characters).
        safety_identifier (None | str | Unset): Replaces the identifier derived from the end user (1 to 64 characters).
    """

    disabled: bool | None | Unset = UNSET
    prompt_cache_key: None | str | Unset = UNSET
    safety_identifier: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        disabled: bool | None | Unset
        if isinstance(self.disabled, Unset):
            disabled = UNSET
        else:
            disabled = self.disabled

        prompt_cache_key: None | str | Unset
        if isinstance(self.prompt_cache_key, Unset):
            prompt_cache_key = UNSET
        else:
            prompt_cache_key = self.prompt_cache_key

        safety_identifier: None | str | Unset
        if isinstance(self.safety_identifier, Unset):
            safety_identifier = UNSET
        else:
            safety_identifier = self.safety_identifier

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if disabled is not UNSET:
            field_dict["disabled"] = disabled
        if prompt_cache_key is not UNSET:
            field_dict["promptCacheKey"] = prompt_cache_key
        if safety_identifier is not UNSET:
            field_dict["safetyIdentifier"] = safety_identifier

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_disabled(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        disabled = _parse_disabled(d.pop("disabled", UNSET))

        def _parse_prompt_cache_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        prompt_cache_key = _parse_prompt_cache_key(d.pop("promptCacheKey", UNSET))

        def _parse_safety_identifier(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        safety_identifier = _parse_safety_identifier(d.pop("safetyIdentifier", UNSET))

        open_ai_overrides = cls(
            disabled=disabled,
            prompt_cache_key=prompt_cache_key,
            safety_identifier=safety_identifier,
        )

        return open_ai_overrides
