from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.registry_server_packages_item import RegistryServerPackagesItem
    from ..models.remote import Remote


T = TypeVar("T", bound="RegistryServer")


@_attrs_define
class RegistryServer:
    """A registry server as answered.

    Attributes:
        description (str):
        installable (bool): A remote URL without `{variables}`: `POST /api/mcps` can use it.
        managed_oauth (bool): A remote is a managed-OAuth server of this instance.
        name (str):
        packages (list[RegistryServerPackagesItem]):
        remotes (list[Remote]):
        status (str):
        version (str):
        repository_url (None | str | Unset):
        title (None | str | Unset):
        updated_at (None | str | Unset):
        website_url (None | str | Unset):
    """

    description: str
    installable: bool
    managed_oauth: bool
    name: str
    packages: list[RegistryServerPackagesItem]
    remotes: list[Remote]
    status: str
    version: str
    repository_url: None | str | Unset = UNSET
    title: None | str | Unset = UNSET
    updated_at: None | str | Unset = UNSET
    website_url: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        description = self.description

        installable = self.installable

        managed_oauth = self.managed_oauth

        name = self.name

        packages = []
        for packages_item_data in self.packages:
            packages_item = packages_item_data.to_dict()
            packages.append(packages_item)

        remotes = []
        for remotes_item_data in self.remotes:
            remotes_item = remotes_item_data.to_dict()
            remotes.append(remotes_item)

        status = self.status

        version = self.version

        repository_url: None | str | Unset
        if isinstance(self.repository_url, Unset):
            repository_url = UNSET
        else:
            repository_url = self.repository_url

        title: None | str | Unset
        if isinstance(self.title, Unset):
            title = UNSET
        else:
            title = self.title

        updated_at: None | str | Unset
        if isinstance(self.updated_at, Unset):
            updated_at = UNSET
        else:
            updated_at = self.updated_at

        website_url: None | str | Unset
        if isinstance(self.website_url, Unset):
            website_url = UNSET
        else:
            website_url = self.website_url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "description": description,
                "installable": installable,
                "managed_oauth": managed_oauth,
                "name": name,
                "packages": packages,
                "remotes": remotes,
                "status": status,
                "version": version,
            }
        )
        if repository_url is not UNSET:
            field_dict["repository_url"] = repository_url
        if title is not UNSET:
            field_dict["title"] = title
        if updated_at is not UNSET:
            field_dict["updated_at"] = updated_at
        if website_url is not UNSET:
            field_dict["website_url"] = website_url

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.registry_server_packages_item import RegistryServerPackagesItem
        from ..models.remote import Remote

        d = dict(src_dict)
        description = d.pop("description")

        installable = d.pop("installable")

        managed_oauth = d.pop("managed_oauth")

        name = d.pop("name")

        packages = []
        _packages = d.pop("packages")
        for packages_item_data in _packages:
            packages_item = RegistryServerPackagesItem.from_dict(packages_item_data)

            packages.append(packages_item)

        remotes = []
        _remotes = d.pop("remotes")
        for remotes_item_data in _remotes:
            remotes_item = Remote.from_dict(remotes_item_data)

            remotes.append(remotes_item)

        status = d.pop("status")

        version = d.pop("version")

        def _parse_repository_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        repository_url = _parse_repository_url(d.pop("repository_url", UNSET))

        def _parse_title(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        title = _parse_title(d.pop("title", UNSET))

        def _parse_updated_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        updated_at = _parse_updated_at(d.pop("updated_at", UNSET))

        def _parse_website_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        website_url = _parse_website_url(d.pop("website_url", UNSET))

        registry_server = cls(
            description=description,
            installable=installable,
            managed_oauth=managed_oauth,
            name=name,
            packages=packages,
            remotes=remotes,
            status=status,
            version=version,
            repository_url=repository_url,
            title=title,
            updated_at=updated_at,
            website_url=website_url,
        )

        registry_server.additional_properties = d
        return registry_server

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
