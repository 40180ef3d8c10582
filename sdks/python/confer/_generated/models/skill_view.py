from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.skill_source import SkillSource
from ..models.sync_status import SyncStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.skill_file_entry import SkillFileEntry
    from ..models.skill_view_metadata import SkillViewMetadata


T = TypeVar("T", bound="SkillView")


@_attrs_define
class SkillView:
    """A skill as answered (its token never; `has_token` says whether it has
    one).

        Attributes:
            content_hash (str):
            created_at (datetime.datetime):
            description (str):
            files (list[SkillFileEntry]):
            has_token (bool):
            id (UUID): A skill of an org's library (`agent-extras.md` §1).
            metadata (SkillViewMetadata):
            name (str):
            org_id (UUID): An organization: the boundary of every other resource.
            source (SkillSource): Where a skill came from.
            updated_at (datetime.datetime):
            version (int):
            allowed_tools (None | str | Unset):
            compatibility (None | str | Unset):
            instructions (None | str | Unset): `SKILL.md` less its front matter (`GET /api/skills/{id}` only).
            last_error (None | str | Unset):
            license_ (None | str | Unset):
            revision (None | str | Unset):
            source_path (None | str | Unset):
            source_ref (None | str | Unset):
            source_url (None | str | Unset):
            sync_status (None | SyncStatus | Unset):
            synced_at (datetime.datetime | None | Unset):
    """

    content_hash: str
    created_at: datetime.datetime
    description: str
    files: list[SkillFileEntry]
    has_token: bool
    id: UUID
    metadata: SkillViewMetadata
    name: str
    org_id: UUID
    source: SkillSource
    updated_at: datetime.datetime
    version: int
    allowed_tools: None | str | Unset = UNSET
    compatibility: None | str | Unset = UNSET
    instructions: None | str | Unset = UNSET
    last_error: None | str | Unset = UNSET
    license_: None | str | Unset = UNSET
    revision: None | str | Unset = UNSET
    source_path: None | str | Unset = UNSET
    source_ref: None | str | Unset = UNSET
    source_url: None | str | Unset = UNSET
    sync_status: None | SyncStatus | Unset = UNSET
    synced_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content_hash = self.content_hash

        created_at = self.created_at.isoformat()

        description = self.description

        files = []
        for files_item_data in self.files:
            files_item = files_item_data.to_dict()
            files.append(files_item)

        has_token = self.has_token

        id = str(self.id)

        metadata = self.metadata.to_dict()

        name = self.name

        org_id = str(self.org_id)

        source = self.source.value

        updated_at = self.updated_at.isoformat()

        version = self.version

        allowed_tools: None | str | Unset
        if isinstance(self.allowed_tools, Unset):
            allowed_tools = UNSET
        else:
            allowed_tools = self.allowed_tools

        compatibility: None | str | Unset
        if isinstance(self.compatibility, Unset):
            compatibility = UNSET
        else:
            compatibility = self.compatibility

        instructions: None | str | Unset
        if isinstance(self.instructions, Unset):
            instructions = UNSET
        else:
            instructions = self.instructions

        last_error: None | str | Unset
        if isinstance(self.last_error, Unset):
            last_error = UNSET
        else:
            last_error = self.last_error

        license_: None | str | Unset
        if isinstance(self.license_, Unset):
            license_ = UNSET
        else:
            license_ = self.license_

        revision: None | str | Unset
        if isinstance(self.revision, Unset):
            revision = UNSET
        else:
            revision = self.revision

        source_path: None | str | Unset
        if isinstance(self.source_path, Unset):
            source_path = UNSET
        else:
            source_path = self.source_path

        source_ref: None | str | Unset
        if isinstance(self.source_ref, Unset):
            source_ref = UNSET
        else:
            source_ref = self.source_ref

        source_url: None | str | Unset
        if isinstance(self.source_url, Unset):
            source_url = UNSET
        else:
            source_url = self.source_url

        sync_status: None | str | Unset
        if isinstance(self.sync_status, Unset):
            sync_status = UNSET
        elif isinstance(self.sync_status, SyncStatus):
            sync_status = self.sync_status.value
        else:
            sync_status = self.sync_status

        synced_at: None | str | Unset
        if isinstance(self.synced_at, Unset):
            synced_at = UNSET
        elif isinstance(self.synced_at, datetime.datetime):
            synced_at = self.synced_at.isoformat()
        else:
            synced_at = self.synced_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content_hash": content_hash,
                "created_at": created_at,
                "description": description,
                "files": files,
                "has_token": has_token,
                "id": id,
                "metadata": metadata,
                "name": name,
                "org_id": org_id,
                "source": source,
                "updated_at": updated_at,
                "version": version,
            }
        )
        if allowed_tools is not UNSET:
            field_dict["allowed_tools"] = allowed_tools
        if compatibility is not UNSET:
            field_dict["compatibility"] = compatibility
        if instructions is not UNSET:
            field_dict["instructions"] = instructions
        if last_error is not UNSET:
            field_dict["last_error"] = last_error
        if license_ is not UNSET:
            field_dict["license"] = license_
        if revision is not UNSET:
            field_dict["revision"] = revision
        if source_path is not UNSET:
            field_dict["source_path"] = source_path
        if source_ref is not UNSET:
            field_dict["source_ref"] = source_ref
        if source_url is not UNSET:
            field_dict["source_url"] = source_url
        if sync_status is not UNSET:
            field_dict["sync_status"] = sync_status
        if synced_at is not UNSET:
            field_dict["synced_at"] = synced_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.skill_file_entry import SkillFileEntry
        from ..models.skill_view_metadata import SkillViewMetadata

        d = dict(src_dict)
        content_hash = d.pop("content_hash")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        description = d.pop("description")

        files = []
        _files = d.pop("files")
        for files_item_data in _files:
            files_item = SkillFileEntry.from_dict(files_item_data)

            files.append(files_item)

        has_token = d.pop("has_token")

        id = UUID(d.pop("id"))

        metadata = SkillViewMetadata.from_dict(d.pop("metadata"))

        name = d.pop("name")

        org_id = UUID(d.pop("org_id"))

        source = SkillSource(d.pop("source"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        version = d.pop("version")

        def _parse_allowed_tools(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        allowed_tools = _parse_allowed_tools(d.pop("allowed_tools", UNSET))

        def _parse_compatibility(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        compatibility = _parse_compatibility(d.pop("compatibility", UNSET))

        def _parse_instructions(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        instructions = _parse_instructions(d.pop("instructions", UNSET))

        def _parse_last_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        last_error = _parse_last_error(d.pop("last_error", UNSET))

        def _parse_license_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        license_ = _parse_license_(d.pop("license", UNSET))

        def _parse_revision(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        revision = _parse_revision(d.pop("revision", UNSET))

        def _parse_source_path(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source_path = _parse_source_path(d.pop("source_path", UNSET))

        def _parse_source_ref(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source_ref = _parse_source_ref(d.pop("source_ref", UNSET))

        def _parse_source_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source_url = _parse_source_url(d.pop("source_url", UNSET))

        def _parse_sync_status(data: object) -> None | SyncStatus | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                sync_status_type_0 = SyncStatus(data)

                return sync_status_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SyncStatus | Unset, data)

        sync_status = _parse_sync_status(d.pop("sync_status", UNSET))

        def _parse_synced_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                synced_at_type_0 = datetime.datetime.fromisoformat(data)

                return synced_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        synced_at = _parse_synced_at(d.pop("synced_at", UNSET))

        skill_view = cls(
            content_hash=content_hash,
            created_at=created_at,
            description=description,
            files=files,
            has_token=has_token,
            id=id,
            metadata=metadata,
            name=name,
            org_id=org_id,
            source=source,
            updated_at=updated_at,
            version=version,
            allowed_tools=allowed_tools,
            compatibility=compatibility,
            instructions=instructions,
            last_error=last_error,
            license_=license_,
            revision=revision,
            source_path=source_path,
            source_ref=source_ref,
            source_url=source_url,
            sync_status=sync_status,
            synced_at=synced_at,
        )

        skill_view.additional_properties = d
        return skill_view

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
