from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.thread_kind import ThreadKind
from ..models.thread_origin import ThreadOrigin
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.thread_view_metadata import ThreadViewMetadata


T = TypeVar("T", bound="ThreadView")


@_attrs_define
class ThreadView:
    """The thread as every endpoint returns it.

    Attributes:
        agent_id (str):
        created_at (str):
        created_by (str):
        id (str):
        kind (ThreadKind): `single` (one user) or `multiplayer` (several participants).
        metadata (ThreadViewMetadata):
        org_id (str):
        resource_bindings (list[Any]):
        status (str):
        updated_at (str):
        active_profile (None | str | Unset):
        origin (None | ThreadOrigin | Unset):
        project_id (None | str | Unset): The project it belongs to, else null.
        publication_id (None | str | Unset): The publication a visitor created it through, else null.
        system_prompt_overlay (None | str | Unset):
        title (None | str | Unset):
    """

    agent_id: str
    created_at: str
    created_by: str
    id: str
    kind: ThreadKind
    metadata: ThreadViewMetadata
    org_id: str
    resource_bindings: list[Any]
    status: str
    updated_at: str
    active_profile: None | str | Unset = UNSET
    origin: None | ThreadOrigin | Unset = UNSET
    project_id: None | str | Unset = UNSET
    publication_id: None | str | Unset = UNSET
    system_prompt_overlay: None | str | Unset = UNSET
    title: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        created_at = self.created_at

        created_by = self.created_by

        id = self.id

        kind = self.kind.value

        metadata = self.metadata.to_dict()

        org_id = self.org_id

        resource_bindings = self.resource_bindings

        status = self.status

        updated_at = self.updated_at

        active_profile: None | str | Unset
        if isinstance(self.active_profile, Unset):
            active_profile = UNSET
        else:
            active_profile = self.active_profile

        origin: None | str | Unset
        if isinstance(self.origin, Unset):
            origin = UNSET
        elif isinstance(self.origin, ThreadOrigin):
            origin = self.origin.value
        else:
            origin = self.origin

        project_id: None | str | Unset
        if isinstance(self.project_id, Unset):
            project_id = UNSET
        else:
            project_id = self.project_id

        publication_id: None | str | Unset
        if isinstance(self.publication_id, Unset):
            publication_id = UNSET
        else:
            publication_id = self.publication_id

        system_prompt_overlay: None | str | Unset
        if isinstance(self.system_prompt_overlay, Unset):
            system_prompt_overlay = UNSET
        else:
            system_prompt_overlay = self.system_prompt_overlay

        title: None | str | Unset
        if isinstance(self.title, Unset):
            title = UNSET
        else:
            title = self.title

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "created_at": created_at,
                "created_by": created_by,
                "id": id,
                "kind": kind,
                "metadata": metadata,
                "org_id": org_id,
                "resource_bindings": resource_bindings,
                "status": status,
                "updated_at": updated_at,
            }
        )
        if active_profile is not UNSET:
            field_dict["active_profile"] = active_profile
        if origin is not UNSET:
            field_dict["origin"] = origin
        if project_id is not UNSET:
            field_dict["project_id"] = project_id
        if publication_id is not UNSET:
            field_dict["publication_id"] = publication_id
        if system_prompt_overlay is not UNSET:
            field_dict["system_prompt_overlay"] = system_prompt_overlay
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.thread_view_metadata import ThreadViewMetadata

        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        created_at = d.pop("created_at")

        created_by = d.pop("created_by")

        id = d.pop("id")

        kind = ThreadKind(d.pop("kind"))

        metadata = ThreadViewMetadata.from_dict(d.pop("metadata"))

        org_id = d.pop("org_id")

        resource_bindings = cast(list[Any], d.pop("resource_bindings"))

        status = d.pop("status")

        updated_at = d.pop("updated_at")

        def _parse_active_profile(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        active_profile = _parse_active_profile(d.pop("active_profile", UNSET))

        def _parse_origin(data: object) -> None | ThreadOrigin | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                origin_type_0 = ThreadOrigin(data)

                return origin_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ThreadOrigin | Unset, data)

        origin = _parse_origin(d.pop("origin", UNSET))

        def _parse_project_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        project_id = _parse_project_id(d.pop("project_id", UNSET))

        def _parse_publication_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        publication_id = _parse_publication_id(d.pop("publication_id", UNSET))

        def _parse_system_prompt_overlay(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        system_prompt_overlay = _parse_system_prompt_overlay(d.pop("system_prompt_overlay", UNSET))

        def _parse_title(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        title = _parse_title(d.pop("title", UNSET))

        thread_view = cls(
            agent_id=agent_id,
            created_at=created_at,
            created_by=created_by,
            id=id,
            kind=kind,
            metadata=metadata,
            org_id=org_id,
            resource_bindings=resource_bindings,
            status=status,
            updated_at=updated_at,
            active_profile=active_profile,
            origin=origin,
            project_id=project_id,
            publication_id=publication_id,
            system_prompt_overlay=system_prompt_overlay,
            title=title,
        )

        thread_view.additional_properties = d
        return thread_view

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
