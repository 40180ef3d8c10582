from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="PutEmbeddings")


@_attrs_define
class PutEmbeddings:
    """`PUT` body: the whole configuration.

    Attributes:
        base_url (str): The server's base URL (`{baseUrl}/embeddings` is called).
        model (str):
        api_key (None | str | Unset): Write-only; absent keeps the key for the same base URL, `null`
            removes it.
        batch_size (int | None | Unset): 1–2,048, default 64.
        dims (int | None | Unset): Asked of the server as `dimensions` (1–8,192); else learned.
        timeout_ms (int | None | Unset): 1,000–120,000, default 30,000.
    """

    base_url: str
    model: str
    api_key: None | str | Unset = UNSET
    batch_size: int | None | Unset = UNSET
    dims: int | None | Unset = UNSET
    timeout_ms: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        base_url = self.base_url

        model = self.model

        api_key: None | str | Unset
        if isinstance(self.api_key, Unset):
            api_key = UNSET
        else:
            api_key = self.api_key

        batch_size: int | None | Unset
        if isinstance(self.batch_size, Unset):
            batch_size = UNSET
        else:
            batch_size = self.batch_size

        dims: int | None | Unset
        if isinstance(self.dims, Unset):
            dims = UNSET
        else:
            dims = self.dims

        timeout_ms: int | None | Unset
        if isinstance(self.timeout_ms, Unset):
            timeout_ms = UNSET
        else:
            timeout_ms = self.timeout_ms

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "baseUrl": base_url,
                "model": model,
            }
        )
        if api_key is not UNSET:
            field_dict["apiKey"] = api_key
        if batch_size is not UNSET:
            field_dict["batchSize"] = batch_size
        if dims is not UNSET:
            field_dict["dims"] = dims
        if timeout_ms is not UNSET:
            field_dict["timeoutMs"] = timeout_ms

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        base_url = d.pop("baseUrl")

        model = d.pop("model")

        def _parse_api_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        api_key = _parse_api_key(d.pop("apiKey", UNSET))

        def _parse_batch_size(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        batch_size = _parse_batch_size(d.pop("batchSize", UNSET))

        def _parse_dims(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        dims = _parse_dims(d.pop("dims", UNSET))

        def _parse_timeout_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        timeout_ms = _parse_timeout_ms(d.pop("timeoutMs", UNSET))

        put_embeddings = cls(
            base_url=base_url,
            model=model,
            api_key=api_key,
            batch_size=batch_size,
            dims=dims,
            timeout_ms=timeout_ms,
        )

        put_embeddings.additional_properties = d
        return put_embeddings

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
