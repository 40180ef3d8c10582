from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.error_body_error import ErrorBodyError
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.stale_body_current import StaleBodyCurrent


T = TypeVar("T", bound="StaleBody")


@_attrs_define
class StaleBody:
    """`PRECONDITION_FAILED`'s body: the error and the current object.

    Attributes:
        error (ErrorBodyError):
        current (StaleBodyCurrent):
        detail (str | Unset): What was wrong, naming the field; never internals.
    """

    error: ErrorBodyError
    current: StaleBodyCurrent
    detail: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        error = self.error.value

        current = self.current.to_dict()

        detail = self.detail

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "error": error,
                "current": current,
            }
        )
        if detail is not UNSET:
            field_dict["detail"] = detail

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.stale_body_current import StaleBodyCurrent

        d = dict(src_dict)
        error = ErrorBodyError(d.pop("error"))

        current = StaleBodyCurrent.from_dict(d.pop("current"))

        detail = d.pop("detail", UNSET)

        stale_body = cls(
            error=error,
            current=current,
            detail=detail,
        )

        stale_body.additional_properties = d
        return stale_body

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
