from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="Chunk")


@_attrs_define
class Chunk:
    """One chunk of a document's text.

    Attributes:
        breadcrumb (str): `Title › H1 › H2`: the headings above `start`.
        doc_id (str):
        end (int):
        id (str): `{doc}:{generation}:{n}`.
        n (int): Its place in the document, from 0.
        start (int): Character offsets in the document's text (`end` exclusive).
        text (str):
        page (int | None | Unset): 1-based pages of `start` and of the last character (PDF only).
        page_end (int | None | Unset):
    """

    breadcrumb: str
    doc_id: str
    end: int
    id: str
    n: int
    start: int
    text: str
    page: int | None | Unset = UNSET
    page_end: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        breadcrumb = self.breadcrumb

        doc_id = self.doc_id

        end = self.end

        id = self.id

        n = self.n

        start = self.start

        text = self.text

        page: int | None | Unset
        if isinstance(self.page, Unset):
            page = UNSET
        else:
            page = self.page

        page_end: int | None | Unset
        if isinstance(self.page_end, Unset):
            page_end = UNSET
        else:
            page_end = self.page_end

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "breadcrumb": breadcrumb,
                "doc_id": doc_id,
                "end": end,
                "id": id,
                "n": n,
                "start": start,
                "text": text,
            }
        )
        if page is not UNSET:
            field_dict["page"] = page
        if page_end is not UNSET:
            field_dict["page_end"] = page_end

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        breadcrumb = d.pop("breadcrumb")

        doc_id = d.pop("doc_id")

        end = d.pop("end")

        id = d.pop("id")

        n = d.pop("n")

        start = d.pop("start")

        text = d.pop("text")

        def _parse_page(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        page = _parse_page(d.pop("page", UNSET))

        def _parse_page_end(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        page_end = _parse_page_end(d.pop("page_end", UNSET))

        chunk = cls(
            breadcrumb=breadcrumb,
            doc_id=doc_id,
            end=end,
            id=id,
            n=n,
            start=start,
            text=text,
            page=page,
            page_end=page_end,
        )

        chunk.additional_properties = d
        return chunk

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
