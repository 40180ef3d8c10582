from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="UseBody")


@_attrs_define
class UseBody:
    """`POST /api/marketplace/official/use` body: one of the two ids.

    Attributes:
        listing_id (None | Unset | UUID): A listed agent's id.
        name (None | str | Unset): The new agent's name (default: the title).
        template_id (None | str | Unset): An official template's id.
    """

    listing_id: None | Unset | UUID = UNSET
    name: None | str | Unset = UNSET
    template_id: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        listing_id: None | str | Unset
        if isinstance(self.listing_id, Unset):
            listing_id = UNSET
        elif isinstance(self.listing_id, UUID):
            listing_id = str(self.listing_id)
        else:
            listing_id = self.listing_id

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        template_id: None | str | Unset
        if isinstance(self.template_id, Unset):
            template_id = UNSET
        else:
            template_id = self.template_id

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if listing_id is not UNSET:
            field_dict["listingId"] = listing_id
        if name is not UNSET:
            field_dict["name"] = name
        if template_id is not UNSET:
            field_dict["templateId"] = template_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_listing_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                listing_id_type_0 = UUID(data)

                return listing_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        listing_id = _parse_listing_id(d.pop("listingId", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_template_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        template_id = _parse_template_id(d.pop("templateId", UNSET))

        use_body = cls(
            listing_id=listing_id,
            name=name,
            template_id=template_id,
        )

        return use_body
