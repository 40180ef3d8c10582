from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.embeddings_view_reembed_type_0 import EmbeddingsViewReembedType0


T = TypeVar("T", bound="EmbeddingsView")


@_attrs_define
class EmbeddingsView:
    """The configuration as shown.

    Attributes:
        configured (bool):
        has_api_key (bool):
        pending_chunks (int):
        status (str): `unconfigured`, `ready`, `embedding` or `error`.
        base_url (None | str | Unset):
        dims (int | None | Unset):
        last_error (None | str | Unset):
        model (None | str | Unset):
        reembed (EmbeddingsViewReembedType0 | None | Unset): `{from_model}` while a re-embed runs, else null.
    """

    configured: bool
    has_api_key: bool
    pending_chunks: int
    status: str
    base_url: None | str | Unset = UNSET
    dims: int | None | Unset = UNSET
    last_error: None | str | Unset = UNSET
    model: None | str | Unset = UNSET
    reembed: EmbeddingsViewReembedType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.embeddings_view_reembed_type_0 import EmbeddingsViewReembedType0

        configured = self.configured

        has_api_key = self.has_api_key

        pending_chunks = self.pending_chunks

        status = self.status

        base_url: None | str | Unset
        if isinstance(self.base_url, Unset):
            base_url = UNSET
        else:
            base_url = self.base_url

        dims: int | None | Unset
        if isinstance(self.dims, Unset):
            dims = UNSET
        else:
            dims = self.dims

        last_error: None | str | Unset
        if isinstance(self.last_error, Unset):
            last_error = UNSET
        else:
            last_error = self.last_error

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        reembed: dict[str, Any] | None | Unset
        if isinstance(self.reembed, Unset):
            reembed = UNSET
        elif isinstance(self.reembed, EmbeddingsViewReembedType0):
            reembed = self.reembed.to_dict()
        else:
            reembed = self.reembed

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "configured": configured,
                "has_api_key": has_api_key,
                "pending_chunks": pending_chunks,
                "status": status,
            }
        )
        if base_url is not UNSET:
            field_dict["base_url"] = base_url
        if dims is not UNSET:
            field_dict["dims"] = dims
        if last_error is not UNSET:
            field_dict["last_error"] = last_error
        if model is not UNSET:
            field_dict["model"] = model
        if reembed is not UNSET:
            field_dict["reembed"] = reembed

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.embeddings_view_reembed_type_0 import EmbeddingsViewReembedType0

        d = dict(src_dict)
        configured = d.pop("configured")

        has_api_key = d.pop("has_api_key")

        pending_chunks = d.pop("pending_chunks")

        status = d.pop("status")

        def _parse_base_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        base_url = _parse_base_url(d.pop("base_url", UNSET))

        def _parse_dims(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        dims = _parse_dims(d.pop("dims", UNSET))

        def _parse_last_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        last_error = _parse_last_error(d.pop("last_error", UNSET))

        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model = _parse_model(d.pop("model", UNSET))

        def _parse_reembed(data: object) -> EmbeddingsViewReembedType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                reembed_type_0 = EmbeddingsViewReembedType0.from_dict(data)

                return reembed_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EmbeddingsViewReembedType0 | None | Unset, data)

        reembed = _parse_reembed(d.pop("reembed", UNSET))

        embeddings_view = cls(
            configured=configured,
            has_api_key=has_api_key,
            pending_chunks=pending_chunks,
            status=status,
            base_url=base_url,
            dims=dims,
            last_error=last_error,
            model=model,
            reembed=reembed,
        )

        embeddings_view.additional_properties = d
        return embeddings_view

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
