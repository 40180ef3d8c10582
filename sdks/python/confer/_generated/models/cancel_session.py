from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="CancelSession")


@_attrs_define
class CancelSession:
    """`POST /api/code-sessions/{id}/cancel` body (optional).

    Attributes:
        queued (bool | Unset): Also drop the queued messages.
    """

    queued: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        queued = self.queued

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if queued is not UNSET:
            field_dict["queued"] = queued

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        queued = d.pop("queued", UNSET)

        cancel_session = cls(
            queued=queued,
        )

        return cancel_session
