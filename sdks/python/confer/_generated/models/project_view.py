from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.project_role import ProjectRole
from ..types import UNSET, Unset

T = TypeVar("T", bound="ProjectView")


@_attrs_define
class ProjectView:
    """A project as every endpoint returns it.

    Attributes:
        created_at (str):
        created_by (str):
        id (str):
        name (str):
        org_id (str):
        updated_at (str):
        caller_role (None | ProjectRole | Unset):
        description (None | str | Unset):
        slug (None | str | Unset):
    """

    created_at: str
    created_by: str
    id: str
    name: str
    org_id: str
    updated_at: str
    caller_role: None | ProjectRole | Unset = UNSET
    description: None | str | Unset = UNSET
    slug: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at

        created_by = self.created_by

        id = self.id

        name = self.name

        org_id = self.org_id

        updated_at = self.updated_at

        caller_role: None | str | Unset
        if isinstance(self.caller_role, Unset):
            caller_role = UNSET
        elif isinstance(self.caller_role, ProjectRole):
            caller_role = self.caller_role.value
        else:
            caller_role = self.caller_role

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        slug: None | str | Unset
        if isinstance(self.slug, Unset):
            slug = UNSET
        else:
            slug = self.slug

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "created_by": created_by,
                "id": id,
                "name": name,
                "org_id": org_id,
                "updated_at": updated_at,
            }
        )
        if caller_role is not UNSET:
            field_dict["caller_role"] = caller_role
        if description is not UNSET:
            field_dict["description"] = description
        if slug is not UNSET:
            field_dict["slug"] = slug

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = d.pop("created_at")

        created_by = d.pop("created_by")

        id = d.pop("id")

        name = d.pop("name")

        org_id = d.pop("org_id")

        updated_at = d.pop("updated_at")

        def _parse_caller_role(data: object) -> None | ProjectRole | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                caller_role_type_0 = ProjectRole(data)

                return caller_role_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ProjectRole | Unset, data)

        caller_role = _parse_caller_role(d.pop("caller_role", UNSET))

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_slug(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        slug = _parse_slug(d.pop("slug", UNSET))

        project_view = cls(
            created_at=created_at,
            created_by=created_by,
            id=id,
            name=name,
            org_id=org_id,
            updated_at=updated_at,
            caller_role=caller_role,
            description=description,
            slug=slug,
        )

        project_view.additional_properties = d
        return project_view

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
