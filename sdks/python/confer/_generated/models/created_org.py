from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

if TYPE_CHECKING:
    from ..models.created_key import CreatedKey


T = TypeVar("T", bound="CreatedOrg")


@_attrs_define
class CreatedOrg:
    """
    Attributes:
        created_at (str):
        id (str):
        name (str):
        api_key (CreatedKey): A key with its secret: the answer of the call that created it.
    """

    created_at: str
    id: str
    name: str
    api_key: CreatedKey
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at

        id = self.id

        name = self.name

        api_key = self.api_key.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "id": id,
                "name": name,
                "api_key": api_key,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.created_key import CreatedKey

        d = dict(src_dict)
        created_at = d.pop("created_at")

        id = d.pop("id")

        name = d.pop("name")

        api_key = CreatedKey.from_dict(d.pop("api_key"))

        created_org = cls(
            created_at=created_at,
            id=id,
            name=name,
            api_key=api_key,
        )

        created_org.additional_properties = d
        return created_org

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
