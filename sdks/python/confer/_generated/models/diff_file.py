from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

T = TypeVar("T", bound="DiffFile")


@_attrs_define
class DiffFile:
    """One file of a diff.

    Attributes:
        additions (int):
        deletions (int):
        path (str):
        status (str): `added`, `modified`, `deleted` or `renamed`.
    """

    additions: int
    deletions: int
    path: str
    status: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        additions = self.additions

        deletions = self.deletions

        path = self.path

        status = self.status

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "additions": additions,
                "deletions": deletions,
                "path": path,
                "status": status,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        additions = d.pop("additions")

        deletions = d.pop("deletions")

        path = d.pop("path")

        status = d.pop("status")

        diff_file = cls(
            additions=additions,
            deletions=deletions,
            path=path,
            status=status,
        )

        diff_file.additional_properties = d
        return diff_file

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
