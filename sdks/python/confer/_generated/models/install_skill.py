from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="InstallSkill")


@_attrs_define
class InstallSkill:
    """The JSON body of an install from a source.

    Attributes:
        source (str): `archive` (a zip or tar.gz URL), `git` (a repository over
            http(s)) or `catalog`.
        key (None | str | Unset): The catalogue skill (`catalog`), as browse lists it without
            `catalog:`.
        path (None | str | Unset): The folder of the skill in the archive, when it holds several.
        ref (None | str | Unset): A git branch or tag (`git`).
        token (None | str | Unset): Sent as `Authorization: Bearer` to the URL's host only; stored
            sealed, never answered.
        url (None | str | Unset): The archive's URL (`archive`).
    """

    source: str
    key: None | str | Unset = UNSET
    path: None | str | Unset = UNSET
    ref: None | str | Unset = UNSET
    token: None | str | Unset = UNSET
    url: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        source = self.source

        key: None | str | Unset
        if isinstance(self.key, Unset):
            key = UNSET
        else:
            key = self.key

        path: None | str | Unset
        if isinstance(self.path, Unset):
            path = UNSET
        else:
            path = self.path

        ref: None | str | Unset
        if isinstance(self.ref, Unset):
            ref = UNSET
        else:
            ref = self.ref

        token: None | str | Unset
        if isinstance(self.token, Unset):
            token = UNSET
        else:
            token = self.token

        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "source": source,
            }
        )
        if key is not UNSET:
            field_dict["key"] = key
        if path is not UNSET:
            field_dict["path"] = path
        if ref is not UNSET:
            field_dict["ref"] = ref
        if token is not UNSET:
            field_dict["token"] = token
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        source = d.pop("source")

        def _parse_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        key = _parse_key(d.pop("key", UNSET))

        def _parse_path(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        path = _parse_path(d.pop("path", UNSET))

        def _parse_ref(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ref = _parse_ref(d.pop("ref", UNSET))

        def _parse_token(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        token = _parse_token(d.pop("token", UNSET))

        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))

        install_skill = cls(
            source=source,
            key=key,
            path=path,
            ref=ref,
            token=token,
            url=url,
        )

        return install_skill
