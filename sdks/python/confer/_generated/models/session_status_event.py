from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

T = TypeVar("T", bound="SessionStatusEvent")


@_attrs_define
class SessionStatusEvent:
    """The data of a `session_status` event.

    Attributes:
        session_id (str):
        status (str): `preparing`, `idle`, `running`, `completed`, `failed` or `archived`.
        base_commit (None | str | Unset):
        detail (None | str | Unset):
    """

    session_id: str
    status: str
    base_commit: None | str | Unset = UNSET
    detail: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        session_id = self.session_id

        status = self.status

        base_commit: None | str | Unset
        if isinstance(self.base_commit, Unset):
            base_commit = UNSET
        else:
            base_commit = self.base_commit

        detail: None | str | Unset
        if isinstance(self.detail, Unset):
            detail = UNSET
        else:
            detail = self.detail

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "sessionId": session_id,
                "status": status,
            }
        )
        if base_commit is not UNSET:
            field_dict["baseCommit"] = base_commit
        if detail is not UNSET:
            field_dict["detail"] = detail

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        session_id = d.pop("sessionId")

        status = d.pop("status")

        def _parse_base_commit(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        base_commit = _parse_base_commit(d.pop("baseCommit", UNSET))

        def _parse_detail(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        detail = _parse_detail(d.pop("detail", UNSET))

        session_status_event = cls(
            session_id=session_id,
            status=status,
            base_commit=base_commit,
            detail=detail,
        )

        session_status_event.additional_properties = d
        return session_status_event

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
