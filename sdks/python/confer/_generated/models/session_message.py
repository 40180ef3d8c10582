from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="SessionMessage")


@_attrs_define
class SessionMessage:
    """`POST /api/code-sessions/{id}/messages` body.

    Attributes:
        content (str): ≤ 256 KiB.
        if_busy (None | str | Unset): `queue` (the default), `reject` or `interrupt`, as for a thread.
    """

    content: str
    if_busy: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        content = self.content

        if_busy: None | str | Unset
        if isinstance(self.if_busy, Unset):
            if_busy = UNSET
        else:
            if_busy = self.if_busy

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "content": content,
            }
        )
        if if_busy is not UNSET:
            field_dict["ifBusy"] = if_busy

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        content = d.pop("content")

        def _parse_if_busy(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        if_busy = _parse_if_busy(d.pop("ifBusy", UNSET))

        session_message = cls(
            content=content,
            if_busy=if_busy,
        )

        return session_message
