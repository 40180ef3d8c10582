from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

T = TypeVar("T", bound="NodeReport")


@_attrs_define
class NodeReport:
    """One live node as `GET /api/admin/cluster` lists it.

    Attributes:
        draining (bool):
        heartbeat_at (datetime.datetime):
        id (UUID):
        name (str):
        shards (int): How many shards it owns.
        url (str):
    """

    draining: bool
    heartbeat_at: datetime.datetime
    id: UUID
    name: str
    shards: int
    url: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        draining = self.draining

        heartbeat_at = self.heartbeat_at.isoformat()

        id = str(self.id)

        name = self.name

        shards = self.shards

        url = self.url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "draining": draining,
                "heartbeat_at": heartbeat_at,
                "id": id,
                "name": name,
                "shards": shards,
                "url": url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        draining = d.pop("draining")

        heartbeat_at = datetime.datetime.fromisoformat(d.pop("heartbeat_at"))

        id = UUID(d.pop("id"))

        name = d.pop("name")

        shards = d.pop("shards")

        url = d.pop("url")

        node_report = cls(
            draining=draining,
            heartbeat_at=heartbeat_at,
            id=id,
            name=name,
            shards=shards,
            url=url,
        )

        node_report.additional_properties = d
        return node_report

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
