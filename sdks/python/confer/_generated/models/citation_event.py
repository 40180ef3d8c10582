from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="CitationEvent")


@_attrs_define
class CitationEvent:
    """A citation of a knowledge source, as streamed (camel case) and stored
    with the assistant message.

        Attributes:
            chunk_id (str):
            doc_id (str):
            end (int):
            n (int):
            quote (str): The source's window (≤ 300 characters) that best matches the
                sentence citing it.
            source_ref (str):
            start (int): The quote's character offsets in the document's text.
            title (str):
            page (int | None | Unset):
    """

    chunk_id: str
    doc_id: str
    end: int
    n: int
    quote: str
    source_ref: str
    start: int
    title: str
    page: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        chunk_id = self.chunk_id

        doc_id = self.doc_id

        end = self.end

        n = self.n

        quote = self.quote

        source_ref = self.source_ref

        start = self.start

        title = self.title

        page: int | None | Unset
        if isinstance(self.page, Unset):
            page = UNSET
        else:
            page = self.page

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "chunkId": chunk_id,
                "docId": doc_id,
                "end": end,
                "n": n,
                "quote": quote,
                "sourceRef": source_ref,
                "start": start,
                "title": title,
            }
        )
        if page is not UNSET:
            field_dict["page"] = page

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        chunk_id = d.pop("chunkId")

        doc_id = d.pop("docId")

        end = d.pop("end")

        n = d.pop("n")

        quote = d.pop("quote")

        source_ref = d.pop("sourceRef")

        start = d.pop("start")

        title = d.pop("title")

        def _parse_page(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        page = _parse_page(d.pop("page", UNSET))

        citation_event = cls(
            chunk_id=chunk_id,
            doc_id=doc_id,
            end=end,
            n=n,
            quote=quote,
            source_ref=source_ref,
            start=start,
            title=title,
            page=page,
        )

        citation_event.additional_properties = d
        return citation_event

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
