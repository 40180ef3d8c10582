from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.document_status import DocumentStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.document_view_embedding_type_0 import DocumentViewEmbeddingType0


T = TypeVar("T", bound="DocumentView")


@_attrs_define
class DocumentView:
    """A document as the API shows it.

    Attributes:
        attempts (int):
        chunk_count (int):
        content_type (str):
        created_at (str):
        created_by (str):
        id (str):
        org_id (str):
        scope_id (str):
        scope_type (str):
        searchable (bool): A generation of its chunks is indexed (a reindex keeps the old one
            until the new is ready).
        sha256 (str):
        size_bytes (int):
        source_ref (str):
        status (DocumentStatus): Where a document is in its ingestion.
        title (str):
        updated_at (str):
        embedding (DocumentViewEmbeddingType0 | None | Unset): `{model, embedded, pending}` when the org has embeddings,
            else null.
        error (None | str | Unset):
        indexed_at (None | str | Unset):
        pages (int | None | Unset):
    """

    attempts: int
    chunk_count: int
    content_type: str
    created_at: str
    created_by: str
    id: str
    org_id: str
    scope_id: str
    scope_type: str
    searchable: bool
    sha256: str
    size_bytes: int
    source_ref: str
    status: DocumentStatus
    title: str
    updated_at: str
    embedding: DocumentViewEmbeddingType0 | None | Unset = UNSET
    error: None | str | Unset = UNSET
    indexed_at: None | str | Unset = UNSET
    pages: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.document_view_embedding_type_0 import DocumentViewEmbeddingType0

        attempts = self.attempts

        chunk_count = self.chunk_count

        content_type = self.content_type

        created_at = self.created_at

        created_by = self.created_by

        id = self.id

        org_id = self.org_id

        scope_id = self.scope_id

        scope_type = self.scope_type

        searchable = self.searchable

        sha256 = self.sha256

        size_bytes = self.size_bytes

        source_ref = self.source_ref

        status = self.status.value

        title = self.title

        updated_at = self.updated_at

        embedding: dict[str, Any] | None | Unset
        if isinstance(self.embedding, Unset):
            embedding = UNSET
        elif isinstance(self.embedding, DocumentViewEmbeddingType0):
            embedding = self.embedding.to_dict()
        else:
            embedding = self.embedding

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        indexed_at: None | str | Unset
        if isinstance(self.indexed_at, Unset):
            indexed_at = UNSET
        else:
            indexed_at = self.indexed_at

        pages: int | None | Unset
        if isinstance(self.pages, Unset):
            pages = UNSET
        else:
            pages = self.pages

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempts": attempts,
                "chunk_count": chunk_count,
                "content_type": content_type,
                "created_at": created_at,
                "created_by": created_by,
                "id": id,
                "org_id": org_id,
                "scope_id": scope_id,
                "scope_type": scope_type,
                "searchable": searchable,
                "sha256": sha256,
                "size_bytes": size_bytes,
                "source_ref": source_ref,
                "status": status,
                "title": title,
                "updated_at": updated_at,
            }
        )
        if embedding is not UNSET:
            field_dict["embedding"] = embedding
        if error is not UNSET:
            field_dict["error"] = error
        if indexed_at is not UNSET:
            field_dict["indexed_at"] = indexed_at
        if pages is not UNSET:
            field_dict["pages"] = pages

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.document_view_embedding_type_0 import DocumentViewEmbeddingType0

        d = dict(src_dict)
        attempts = d.pop("attempts")

        chunk_count = d.pop("chunk_count")

        content_type = d.pop("content_type")

        created_at = d.pop("created_at")

        created_by = d.pop("created_by")

        id = d.pop("id")

        org_id = d.pop("org_id")

        scope_id = d.pop("scope_id")

        scope_type = d.pop("scope_type")

        searchable = d.pop("searchable")

        sha256 = d.pop("sha256")

        size_bytes = d.pop("size_bytes")

        source_ref = d.pop("source_ref")

        status = DocumentStatus(d.pop("status"))

        title = d.pop("title")

        updated_at = d.pop("updated_at")

        def _parse_embedding(data: object) -> DocumentViewEmbeddingType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                embedding_type_0 = DocumentViewEmbeddingType0.from_dict(data)

                return embedding_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DocumentViewEmbeddingType0 | None | Unset, data)

        embedding = _parse_embedding(d.pop("embedding", UNSET))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_indexed_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        indexed_at = _parse_indexed_at(d.pop("indexed_at", UNSET))

        def _parse_pages(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        pages = _parse_pages(d.pop("pages", UNSET))

        document_view = cls(
            attempts=attempts,
            chunk_count=chunk_count,
            content_type=content_type,
            created_at=created_at,
            created_by=created_by,
            id=id,
            org_id=org_id,
            scope_id=scope_id,
            scope_type=scope_type,
            searchable=searchable,
            sha256=sha256,
            size_bytes=size_bytes,
            source_ref=source_ref,
            status=status,
            title=title,
            updated_at=updated_at,
            embedding=embedding,
            error=error,
            indexed_at=indexed_at,
            pages=pages,
        )

        document_view.additional_properties = d
        return document_view

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
