from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="ToolView")


@_attrs_define
class ToolView:
    """A tool as admins and members see it.

    Attributes:
        created_at (str):
        description (str):
        id (str):
        kind (str):
        name (str):
        org_id (str):
        parameters (Any):
        timeout_ms (int):
        updated_at (str):
        url (str):
        signing_secret (None | str | Unset):
    """

    created_at: str
    description: str
    id: str
    kind: str
    name: str
    org_id: str
    parameters: Any
    timeout_ms: int
    updated_at: str
    url: str
    signing_secret: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at

        description = self.description

        id = self.id

        kind = self.kind

        name = self.name

        org_id = self.org_id

        parameters = self.parameters

        timeout_ms = self.timeout_ms

        updated_at = self.updated_at

        url = self.url

        signing_secret: None | str | Unset
        if isinstance(self.signing_secret, Unset):
            signing_secret = UNSET
        else:
            signing_secret = self.signing_secret

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "description": description,
                "id": id,
                "kind": kind,
                "name": name,
                "org_id": org_id,
                "parameters": parameters,
                "timeout_ms": timeout_ms,
                "updated_at": updated_at,
                "url": url,
            }
        )
        if signing_secret is not UNSET:
            field_dict["signing_secret"] = signing_secret

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = d.pop("created_at")

        description = d.pop("description")

        id = d.pop("id")

        kind = d.pop("kind")

        name = d.pop("name")

        org_id = d.pop("org_id")

        parameters = d.pop("parameters")

        timeout_ms = d.pop("timeout_ms")

        updated_at = d.pop("updated_at")

        url = d.pop("url")

        def _parse_signing_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        signing_secret = _parse_signing_secret(d.pop("signing_secret", UNSET))

        tool_view = cls(
            created_at=created_at,
            description=description,
            id=id,
            kind=kind,
            name=name,
            org_id=org_id,
            parameters=parameters,
            timeout_ms=timeout_ms,
            updated_at=updated_at,
            url=url,
            signing_secret=signing_secret,
        )

        tool_view.additional_properties = d
        return tool_view

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
