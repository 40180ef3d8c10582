from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.role import Role
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.citation_view import CitationView


T = TypeVar("T", bound="MessageView")


@_attrs_define
class MessageView:
    """A listed message.

    Attributes:
        citations (list[CitationView]): The knowledge sources the answer cited (`[]` if none); they outlive
            the documents.
        content (str):
        created_at (str):
        id (str):
        role (Role): The author of a listed message.
        sender_name (None | str | Unset):
    """

    citations: list[CitationView]
    content: str
    created_at: str
    id: str
    role: Role
    sender_name: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        citations = []
        for citations_item_data in self.citations:
            citations_item = citations_item_data.to_dict()
            citations.append(citations_item)

        content = self.content

        created_at = self.created_at

        id = self.id

        role = self.role.value

        sender_name: None | str | Unset
        if isinstance(self.sender_name, Unset):
            sender_name = UNSET
        else:
            sender_name = self.sender_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "citations": citations,
                "content": content,
                "created_at": created_at,
                "id": id,
                "role": role,
            }
        )
        if sender_name is not UNSET:
            field_dict["sender_name"] = sender_name

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.citation_view import CitationView

        d = dict(src_dict)
        citations = []
        _citations = d.pop("citations")
        for citations_item_data in _citations:
            citations_item = CitationView.from_dict(citations_item_data)

            citations.append(citations_item)

        content = d.pop("content")

        created_at = d.pop("created_at")

        id = d.pop("id")

        role = Role(d.pop("role"))

        def _parse_sender_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        sender_name = _parse_sender_name(d.pop("sender_name", UNSET))

        message_view = cls(
            citations=citations,
            content=content,
            created_at=created_at,
            id=id,
            role=role,
            sender_name=sender_name,
        )

        message_view.additional_properties = d
        return message_view

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
