from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.registry_server import RegistryServer


T = TypeVar("T", bound="SearchAnswer")


@_attrs_define
class SearchAnswer:
    """A search's answer (`GET /api/mcp-registry/search`).

    Attributes:
        servers (list[RegistryServer]):
        source (str): `registry` or `snapshot`.
        next_cursor (None | str | Unset): `r:{registry's}` or `s:{offset}`; null at the end.
        snapshot_fetched_at (None | str | Unset):
        upstream_error (None | str | Unset):
    """

    servers: list[RegistryServer]
    source: str
    next_cursor: None | str | Unset = UNSET
    snapshot_fetched_at: None | str | Unset = UNSET
    upstream_error: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        servers = []
        for servers_item_data in self.servers:
            servers_item = servers_item_data.to_dict()
            servers.append(servers_item)

        source = self.source

        next_cursor: None | str | Unset
        if isinstance(self.next_cursor, Unset):
            next_cursor = UNSET
        else:
            next_cursor = self.next_cursor

        snapshot_fetched_at: None | str | Unset
        if isinstance(self.snapshot_fetched_at, Unset):
            snapshot_fetched_at = UNSET
        else:
            snapshot_fetched_at = self.snapshot_fetched_at

        upstream_error: None | str | Unset
        if isinstance(self.upstream_error, Unset):
            upstream_error = UNSET
        else:
            upstream_error = self.upstream_error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "servers": servers,
                "source": source,
            }
        )
        if next_cursor is not UNSET:
            field_dict["nextCursor"] = next_cursor
        if snapshot_fetched_at is not UNSET:
            field_dict["snapshot_fetched_at"] = snapshot_fetched_at
        if upstream_error is not UNSET:
            field_dict["upstream_error"] = upstream_error

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.registry_server import RegistryServer

        d = dict(src_dict)
        servers = []
        _servers = d.pop("servers")
        for servers_item_data in _servers:
            servers_item = RegistryServer.from_dict(servers_item_data)

            servers.append(servers_item)

        source = d.pop("source")

        def _parse_next_cursor(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        next_cursor = _parse_next_cursor(d.pop("nextCursor", UNSET))

        def _parse_snapshot_fetched_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        snapshot_fetched_at = _parse_snapshot_fetched_at(d.pop("snapshot_fetched_at", UNSET))

        def _parse_upstream_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        upstream_error = _parse_upstream_error(d.pop("upstream_error", UNSET))

        search_answer = cls(
            servers=servers,
            source=source,
            next_cursor=next_cursor,
            snapshot_fetched_at=snapshot_fetched_at,
            upstream_error=upstream_error,
        )

        search_answer.additional_properties = d
        return search_answer

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
