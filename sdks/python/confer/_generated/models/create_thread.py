from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.thread_kind import ThreadKind
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.create_thread_metadata_type_0 import CreateThreadMetadataType0
    from ..models.create_thread_resource_bindings_type_0_item import (
        CreateThreadResourceBindingsType0Item,
    )


T = TypeVar("T", bound="CreateThread")


@_attrs_define
class CreateThread:
    """`POST /api/threads` body.

    Attributes:
        agent_id (UUID): An agent of an organization.
        active_profile (None | str | Unset):
        kind (None | ThreadKind | Unset):
        metadata (CreateThreadMetadataType0 | None | Unset):
        project_id (None | Unset | UUID):
        resource_bindings (list[CreateThreadResourceBindingsType0Item] | None | Unset):
        system_prompt_overlay (list[str] | None | str | Unset):
        title (None | str | Unset):
    """

    agent_id: UUID
    active_profile: None | str | Unset = UNSET
    kind: None | ThreadKind | Unset = UNSET
    metadata: CreateThreadMetadataType0 | None | Unset = UNSET
    project_id: None | Unset | UUID = UNSET
    resource_bindings: list[CreateThreadResourceBindingsType0Item] | None | Unset = UNSET
    system_prompt_overlay: list[str] | None | str | Unset = UNSET
    title: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.create_thread_metadata_type_0 import CreateThreadMetadataType0

        agent_id = str(self.agent_id)

        active_profile: None | str | Unset
        if isinstance(self.active_profile, Unset):
            active_profile = UNSET
        else:
            active_profile = self.active_profile

        kind: None | str | Unset
        if isinstance(self.kind, Unset):
            kind = UNSET
        elif isinstance(self.kind, ThreadKind):
            kind = self.kind.value
        else:
            kind = self.kind

        metadata: dict[str, Any] | None | Unset
        if isinstance(self.metadata, Unset):
            metadata = UNSET
        elif isinstance(self.metadata, CreateThreadMetadataType0):
            metadata = self.metadata.to_dict()
        else:
            metadata = self.metadata

        project_id: None | str | Unset
        if isinstance(self.project_id, Unset):
            project_id = UNSET
        elif isinstance(self.project_id, UUID):
            project_id = str(self.project_id)
        else:
            project_id = self.project_id

        resource_bindings: list[dict[str, Any]] | None | Unset
        if isinstance(self.resource_bindings, Unset):
            resource_bindings = UNSET
        elif isinstance(self.resource_bindings, list):
            resource_bindings = []
            for resource_bindings_type_0_item_data in self.resource_bindings:
                resource_bindings_type_0_item = resource_bindings_type_0_item_data.to_dict()
                resource_bindings.append(resource_bindings_type_0_item)

        else:
            resource_bindings = self.resource_bindings

        system_prompt_overlay: list[str] | None | str | Unset
        if isinstance(self.system_prompt_overlay, Unset):
            system_prompt_overlay = UNSET
        elif isinstance(self.system_prompt_overlay, list):
            system_prompt_overlay = self.system_prompt_overlay

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
                "agentId": agent_id,
            }
        )
        if active_profile is not UNSET:
            field_dict["activeProfile"] = active_profile
        if kind is not UNSET:
            field_dict["kind"] = kind
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if project_id is not UNSET:
            field_dict["projectId"] = project_id
        if resource_bindings is not UNSET:
            field_dict["resourceBindings"] = resource_bindings
        if system_prompt_overlay is not UNSET:
            field_dict["systemPromptOverlay"] = system_prompt_overlay
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.create_thread_metadata_type_0 import CreateThreadMetadataType0
        from ..models.create_thread_resource_bindings_type_0_item import (
            CreateThreadResourceBindingsType0Item,
        )

        d = dict(src_dict)
        agent_id = UUID(d.pop("agentId"))

        def _parse_active_profile(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        active_profile = _parse_active_profile(d.pop("activeProfile", UNSET))

        def _parse_kind(data: object) -> None | ThreadKind | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                kind_type_0 = ThreadKind(data)

                return kind_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ThreadKind | Unset, data)

        kind = _parse_kind(d.pop("kind", UNSET))

        def _parse_metadata(data: object) -> CreateThreadMetadataType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_0 = CreateThreadMetadataType0.from_dict(data)

                return metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CreateThreadMetadataType0 | None | Unset, data)

        metadata = _parse_metadata(d.pop("metadata", UNSET))

        def _parse_project_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                project_id_type_0 = UUID(data)

                return project_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        project_id = _parse_project_id(d.pop("projectId", UNSET))

        def _parse_resource_bindings(
            data: object,
        ) -> list[CreateThreadResourceBindingsType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                resource_bindings_type_0 = []
                _resource_bindings_type_0 = data
                for resource_bindings_type_0_item_data in _resource_bindings_type_0:
                    resource_bindings_type_0_item = CreateThreadResourceBindingsType0Item.from_dict(
                        resource_bindings_type_0_item_data
                    )

                    resource_bindings_type_0.append(resource_bindings_type_0_item)

                return resource_bindings_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[CreateThreadResourceBindingsType0Item] | None | Unset, data)

        resource_bindings = _parse_resource_bindings(d.pop("resourceBindings", UNSET))

        def _parse_system_prompt_overlay(data: object) -> list[str] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                componentsschemas_overlay_type_1 = cast(list[str], data)

                return componentsschemas_overlay_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | str | Unset, data)

        system_prompt_overlay = _parse_system_prompt_overlay(d.pop("systemPromptOverlay", UNSET))

        def _parse_title(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        title = _parse_title(d.pop("title", UNSET))

        create_thread = cls(
            agent_id=agent_id,
            active_profile=active_profile,
            kind=kind,
            metadata=metadata,
            project_id=project_id,
            resource_bindings=resource_bindings,
            system_prompt_overlay=system_prompt_overlay,
            title=title,
        )

        create_thread.additional_properties = d
        return create_thread

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
