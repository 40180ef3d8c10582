from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.update_thread_metadata_type_0 import UpdateThreadMetadataType0


T = TypeVar("T", bound="UpdateThread")


@_attrs_define
class UpdateThread:
    """`PATCH /api/threads/{id}` body; `null` clears a field, metadata is replaced whole.

    Attributes:
        active_profile (None | str | Unset):
        metadata (None | Unset | UpdateThreadMetadataType0):
        project_id (None | str | Unset): Moves it to a project, or out of its project with null (an end
            user: the thread's creator, an editor of both projects).
        system_prompt_overlay (list[str] | None | str | Unset):
        title (None | str | Unset):
    """

    active_profile: None | str | Unset = UNSET
    metadata: None | Unset | UpdateThreadMetadataType0 = UNSET
    project_id: None | str | Unset = UNSET
    system_prompt_overlay: list[str] | None | str | Unset = UNSET
    title: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.update_thread_metadata_type_0 import UpdateThreadMetadataType0

        active_profile: None | str | Unset
        if isinstance(self.active_profile, Unset):
            active_profile = UNSET
        else:
            active_profile = self.active_profile

        metadata: dict[str, Any] | None | Unset
        if isinstance(self.metadata, Unset):
            metadata = UNSET
        elif isinstance(self.metadata, UpdateThreadMetadataType0):
            metadata = self.metadata.to_dict()
        else:
            metadata = self.metadata

        project_id: None | str | Unset
        if isinstance(self.project_id, Unset):
            project_id = UNSET
        else:
            project_id = self.project_id

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
        field_dict.update({})
        if active_profile is not UNSET:
            field_dict["activeProfile"] = active_profile
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if project_id is not UNSET:
            field_dict["projectId"] = project_id
        if system_prompt_overlay is not UNSET:
            field_dict["systemPromptOverlay"] = system_prompt_overlay
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.update_thread_metadata_type_0 import UpdateThreadMetadataType0

        d = dict(src_dict)

        def _parse_active_profile(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        active_profile = _parse_active_profile(d.pop("activeProfile", UNSET))

        def _parse_metadata(data: object) -> None | Unset | UpdateThreadMetadataType0:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_0 = UpdateThreadMetadataType0.from_dict(data)

                return metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UpdateThreadMetadataType0, data)

        metadata = _parse_metadata(d.pop("metadata", UNSET))

        def _parse_project_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        project_id = _parse_project_id(d.pop("projectId", UNSET))

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

        update_thread = cls(
            active_profile=active_profile,
            metadata=metadata,
            project_id=project_id,
            system_prompt_overlay=system_prompt_overlay,
            title=title,
        )

        update_thread.additional_properties = d
        return update_thread

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
