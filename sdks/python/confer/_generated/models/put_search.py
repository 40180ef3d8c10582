from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

from ..models.backend import Backend
from ..types import UNSET, Unset

T = TypeVar("T", bound="PutSearch")


@_attrs_define
class PutSearch:
    """`PUT …/web`'s `search`.

    Attributes:
        api_key (None | str | Unset): Write-only; `null` deletes it.
        backend (Backend | None | Unset):
        enabled (bool | None | Unset):
        max_results (int | None | Unset): 1–10.
        timeout_ms (int | None | Unset): 1,000–60,000.
        url (None | str | Unset): Required for searxng; else the vendor's API.
    """

    api_key: None | str | Unset = UNSET
    backend: Backend | None | Unset = UNSET
    enabled: bool | None | Unset = UNSET
    max_results: int | None | Unset = UNSET
    timeout_ms: int | None | Unset = UNSET
    url: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        api_key: None | str | Unset
        if isinstance(self.api_key, Unset):
            api_key = UNSET
        else:
            api_key = self.api_key

        backend: None | str | Unset
        if isinstance(self.backend, Unset):
            backend = UNSET
        elif isinstance(self.backend, Backend):
            backend = self.backend.value
        else:
            backend = self.backend

        enabled: bool | None | Unset
        if isinstance(self.enabled, Unset):
            enabled = UNSET
        else:
            enabled = self.enabled

        max_results: int | None | Unset
        if isinstance(self.max_results, Unset):
            max_results = UNSET
        else:
            max_results = self.max_results

        timeout_ms: int | None | Unset
        if isinstance(self.timeout_ms, Unset):
            timeout_ms = UNSET
        else:
            timeout_ms = self.timeout_ms

        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if api_key is not UNSET:
            field_dict["apiKey"] = api_key
        if backend is not UNSET:
            field_dict["backend"] = backend
        if enabled is not UNSET:
            field_dict["enabled"] = enabled
        if max_results is not UNSET:
            field_dict["maxResults"] = max_results
        if timeout_ms is not UNSET:
            field_dict["timeoutMs"] = timeout_ms
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_api_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        api_key = _parse_api_key(d.pop("apiKey", UNSET))

        def _parse_backend(data: object) -> Backend | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                backend_type_0 = Backend(data)

                return backend_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Backend | None | Unset, data)

        backend = _parse_backend(d.pop("backend", UNSET))

        def _parse_enabled(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        enabled = _parse_enabled(d.pop("enabled", UNSET))

        def _parse_max_results(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_results = _parse_max_results(d.pop("maxResults", UNSET))

        def _parse_timeout_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        timeout_ms = _parse_timeout_ms(d.pop("timeoutMs", UNSET))

        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))

        put_search = cls(
            api_key=api_key,
            backend=backend,
            enabled=enabled,
            max_results=max_results,
            timeout_ms=timeout_ms,
            url=url,
        )

        return put_search
