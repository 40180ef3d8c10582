from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.entry_source import EntrySource
from ..types import UNSET, Unset

T = TypeVar("T", bound="SkillEntry")


@_attrs_define
class SkillEntry:
    """An entry of `browse`.

    Attributes:
        description (str):
        key (str): `org:{id}` or `catalog:{name}`.
        name (str):
        source (EntrySource): Where a browse entry is.
        installed_id (None | Unset | UUID):
        license_ (None | str | Unset):
        version (int | None | Unset):
    """

    description: str
    key: str
    name: str
    source: EntrySource
    installed_id: None | Unset | UUID = UNSET
    license_: None | str | Unset = UNSET
    version: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        description = self.description

        key = self.key

        name = self.name

        source = self.source.value

        installed_id: None | str | Unset
        if isinstance(self.installed_id, Unset):
            installed_id = UNSET
        elif isinstance(self.installed_id, UUID):
            installed_id = str(self.installed_id)
        else:
            installed_id = self.installed_id

        license_: None | str | Unset
        if isinstance(self.license_, Unset):
            license_ = UNSET
        else:
            license_ = self.license_

        version: int | None | Unset
        if isinstance(self.version, Unset):
            version = UNSET
        else:
            version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "description": description,
                "key": key,
                "name": name,
                "source": source,
            }
        )
        if installed_id is not UNSET:
            field_dict["installed_id"] = installed_id
        if license_ is not UNSET:
            field_dict["license"] = license_
        if version is not UNSET:
            field_dict["version"] = version

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        description = d.pop("description")

        key = d.pop("key")

        name = d.pop("name")

        source = EntrySource(d.pop("source"))

        def _parse_installed_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                installed_id_type_0 = UUID(data)

                return installed_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        installed_id = _parse_installed_id(d.pop("installed_id", UNSET))

        def _parse_license_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        license_ = _parse_license_(d.pop("license", UNSET))

        def _parse_version(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        version = _parse_version(d.pop("version", UNSET))

        skill_entry = cls(
            description=description,
            key=key,
            name=name,
            source=source,
            installed_id=installed_id,
            license_=license_,
            version=version,
        )

        skill_entry.additional_properties = d
        return skill_entry

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
