from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="SearchResultView")


@_attrs_define
class SearchResultView:
    """One ranked chunk.

    Attributes:
        chunk_id (str):
        doc_id (str):
        score (float):
        text (str):
        title (str):
        bm25_rank (int | None | Unset):
        page (int | None | Unset):
        vector_rank (int | None | Unset):
    """

    chunk_id: str
    doc_id: str
    score: float
    text: str
    title: str
    bm25_rank: int | None | Unset = UNSET
    page: int | None | Unset = UNSET
    vector_rank: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        chunk_id = self.chunk_id

        doc_id = self.doc_id

        score = self.score

        text = self.text

        title = self.title

        bm25_rank: int | None | Unset
        if isinstance(self.bm25_rank, Unset):
            bm25_rank = UNSET
        else:
            bm25_rank = self.bm25_rank

        page: int | None | Unset
        if isinstance(self.page, Unset):
            page = UNSET
        else:
            page = self.page

        vector_rank: int | None | Unset
        if isinstance(self.vector_rank, Unset):
            vector_rank = UNSET
        else:
            vector_rank = self.vector_rank

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "chunk_id": chunk_id,
                "doc_id": doc_id,
                "score": score,
                "text": text,
                "title": title,
            }
        )
        if bm25_rank is not UNSET:
            field_dict["bm25_rank"] = bm25_rank
        if page is not UNSET:
            field_dict["page"] = page
        if vector_rank is not UNSET:
            field_dict["vector_rank"] = vector_rank

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        chunk_id = d.pop("chunk_id")

        doc_id = d.pop("doc_id")

        score = d.pop("score")

        text = d.pop("text")

        title = d.pop("title")

        def _parse_bm25_rank(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        bm25_rank = _parse_bm25_rank(d.pop("bm25_rank", UNSET))

        def _parse_page(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        page = _parse_page(d.pop("page", UNSET))

        def _parse_vector_rank(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        vector_rank = _parse_vector_rank(d.pop("vector_rank", UNSET))

        search_result_view = cls(
            chunk_id=chunk_id,
            doc_id=doc_id,
            score=score,
            text=text,
            title=title,
            bm25_rank=bm25_rank,
            page=page,
            vector_rank=vector_rank,
        )

        search_result_view.additional_properties = d
        return search_result_view

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
