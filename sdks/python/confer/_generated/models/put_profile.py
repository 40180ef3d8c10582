from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.capability import Capability


T = TypeVar("T", bound="PutProfile")


@_attrs_define
class PutProfile:
    """`PUT …/marketplace`: any of its fields; the others stay.

    Attributes:
        capabilities (list[Capability] | None | Unset): At most 20, unique names (replaces the list).
        category (None | str | Unset): One of the categories, or null.
        description (None | str | Unset): At most 2,000 characters.
        listed (bool | None | Unset): The first PUT lists the agent unless this is `false`.
        tags (list[str] | None | Unset): At most 10, each 1–32 of `[a-z0-9-]` after lowercasing; repeats dropped.
        title (None | str | Unset): 1–100 characters after trimming.
        visibility (None | str | Unset): `org` or `instance`.
    """

    capabilities: list[Capability] | None | Unset = UNSET
    category: None | str | Unset = UNSET
    description: None | str | Unset = UNSET
    listed: bool | None | Unset = UNSET
    tags: list[str] | None | Unset = UNSET
    title: None | str | Unset = UNSET
    visibility: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        capabilities: list[dict[str, Any]] | None | Unset
        if isinstance(self.capabilities, Unset):
            capabilities = UNSET
        elif isinstance(self.capabilities, list):
            capabilities = []
            for capabilities_type_0_item_data in self.capabilities:
                capabilities_type_0_item = capabilities_type_0_item_data.to_dict()
                capabilities.append(capabilities_type_0_item)

        else:
            capabilities = self.capabilities

        category: None | str | Unset
        if isinstance(self.category, Unset):
            category = UNSET
        else:
            category = self.category

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        listed: bool | None | Unset
        if isinstance(self.listed, Unset):
            listed = UNSET
        else:
            listed = self.listed

        tags: list[str] | None | Unset
        if isinstance(self.tags, Unset):
            tags = UNSET
        elif isinstance(self.tags, list):
            tags = self.tags

        else:
            tags = self.tags

        title: None | str | Unset
        if isinstance(self.title, Unset):
            title = UNSET
        else:
            title = self.title

        visibility: None | str | Unset
        if isinstance(self.visibility, Unset):
            visibility = UNSET
        else:
            visibility = self.visibility

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if capabilities is not UNSET:
            field_dict["capabilities"] = capabilities
        if category is not UNSET:
            field_dict["category"] = category
        if description is not UNSET:
            field_dict["description"] = description
        if listed is not UNSET:
            field_dict["listed"] = listed
        if tags is not UNSET:
            field_dict["tags"] = tags
        if title is not UNSET:
            field_dict["title"] = title
        if visibility is not UNSET:
            field_dict["visibility"] = visibility

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.capability import Capability

        d = dict(src_dict)

        def _parse_capabilities(data: object) -> list[Capability] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                capabilities_type_0 = []
                _capabilities_type_0 = data
                for capabilities_type_0_item_data in _capabilities_type_0:
                    capabilities_type_0_item = Capability.from_dict(capabilities_type_0_item_data)

                    capabilities_type_0.append(capabilities_type_0_item)

                return capabilities_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Capability] | None | Unset, data)

        capabilities = _parse_capabilities(d.pop("capabilities", UNSET))

        def _parse_category(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        category = _parse_category(d.pop("category", UNSET))

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_listed(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        listed = _parse_listed(d.pop("listed", UNSET))

        def _parse_tags(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tags_type_0 = cast(list[str], data)

                return tags_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        tags = _parse_tags(d.pop("tags", UNSET))

        def _parse_title(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        title = _parse_title(d.pop("title", UNSET))

        def _parse_visibility(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        visibility = _parse_visibility(d.pop("visibility", UNSET))

        put_profile = cls(
            capabilities=capabilities,
            category=category,
            description=description,
            listed=listed,
            tags=tags,
            title=title,
            visibility=visibility,
        )

        return put_profile
