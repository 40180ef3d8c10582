from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.diff_file import DiffFile


T = TypeVar("T", bound="DiffView")


@_attrs_define
class DiffView:
    """A session's diff.

    Attributes:
        diff (str):
        files (list[DiffFile]):
        session_id (UUID):
        source (str): `live` (computed now in the sandbox) or `stored`.
        truncated (bool):
        base_commit (None | str | Unset):
        computed_at (datetime.datetime | None | Unset):
    """

    diff: str
    files: list[DiffFile]
    session_id: UUID
    source: str
    truncated: bool
    base_commit: None | str | Unset = UNSET
    computed_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        diff = self.diff

        files = []
        for files_item_data in self.files:
            files_item = files_item_data.to_dict()
            files.append(files_item)

        session_id = str(self.session_id)

        source = self.source

        truncated = self.truncated

        base_commit: None | str | Unset
        if isinstance(self.base_commit, Unset):
            base_commit = UNSET
        else:
            base_commit = self.base_commit

        computed_at: None | str | Unset
        if isinstance(self.computed_at, Unset):
            computed_at = UNSET
        elif isinstance(self.computed_at, datetime.datetime):
            computed_at = self.computed_at.isoformat()
        else:
            computed_at = self.computed_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "diff": diff,
                "files": files,
                "session_id": session_id,
                "source": source,
                "truncated": truncated,
            }
        )
        if base_commit is not UNSET:
            field_dict["base_commit"] = base_commit
        if computed_at is not UNSET:
            field_dict["computed_at"] = computed_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.diff_file import DiffFile

        d = dict(src_dict)
        diff = d.pop("diff")

        files = []
        _files = d.pop("files")
        for files_item_data in _files:
            files_item = DiffFile.from_dict(files_item_data)

            files.append(files_item)

        session_id = UUID(d.pop("session_id"))

        source = d.pop("source")

        truncated = d.pop("truncated")

        def _parse_base_commit(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        base_commit = _parse_base_commit(d.pop("base_commit", UNSET))

        def _parse_computed_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                computed_at_type_0 = datetime.datetime.fromisoformat(data)

                return computed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        computed_at = _parse_computed_at(d.pop("computed_at", UNSET))

        diff_view = cls(
            diff=diff,
            files=files,
            session_id=session_id,
            source=source,
            truncated=truncated,
            base_commit=base_commit,
            computed_at=computed_at,
        )

        diff_view.additional_properties = d
        return diff_view

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
