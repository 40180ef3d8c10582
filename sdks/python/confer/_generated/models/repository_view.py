from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.repository_kind import RepositoryKind
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.archive_view import ArchiveView


T = TypeVar("T", bound="RepositoryView")


@_attrs_define
class RepositoryView:
    """A repository, as shown (never its token).

    Attributes:
        has_token (bool):
        kind (RepositoryKind): How a code agent's repository arrives.
        archive (ArchiveView | None | Unset):
        branch (None | str | Unset):
        depth (int | None | Unset):
        url (None | str | Unset):
    """

    has_token: bool
    kind: RepositoryKind
    archive: ArchiveView | None | Unset = UNSET
    branch: None | str | Unset = UNSET
    depth: int | None | Unset = UNSET
    url: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.archive_view import ArchiveView

        has_token = self.has_token

        kind = self.kind.value

        archive: dict[str, Any] | None | Unset
        if isinstance(self.archive, Unset):
            archive = UNSET
        elif isinstance(self.archive, ArchiveView):
            archive = self.archive.to_dict()
        else:
            archive = self.archive

        branch: None | str | Unset
        if isinstance(self.branch, Unset):
            branch = UNSET
        else:
            branch = self.branch

        depth: int | None | Unset
        if isinstance(self.depth, Unset):
            depth = UNSET
        else:
            depth = self.depth

        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "has_token": has_token,
                "kind": kind,
            }
        )
        if archive is not UNSET:
            field_dict["archive"] = archive
        if branch is not UNSET:
            field_dict["branch"] = branch
        if depth is not UNSET:
            field_dict["depth"] = depth
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.archive_view import ArchiveView

        d = dict(src_dict)
        has_token = d.pop("has_token")

        kind = RepositoryKind(d.pop("kind"))

        def _parse_archive(data: object) -> ArchiveView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                archive_type_0 = ArchiveView.from_dict(data)

                return archive_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ArchiveView | None | Unset, data)

        archive = _parse_archive(d.pop("archive", UNSET))

        def _parse_branch(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        branch = _parse_branch(d.pop("branch", UNSET))

        def _parse_depth(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        depth = _parse_depth(d.pop("depth", UNSET))

        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))

        repository_view = cls(
            has_token=has_token,
            kind=kind,
            archive=archive,
            branch=branch,
            depth=depth,
            url=url,
        )

        repository_view.additional_properties = d
        return repository_view

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
