from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from typing_extensions import Self

if TYPE_CHECKING:
    from ..models.delegate_input import DelegateInput


T = TypeVar("T", bound="PutDelegation")


@_attrs_define
class PutDelegation:
    """`PUT /api/agents/{id}/delegated`'s body.

    Attributes:
        delegates (list[DelegateInput]): Replaces the list; `[]` clears it.
    """

    delegates: list[DelegateInput]

    def to_dict(self) -> dict[str, Any]:
        delegates = []
        for delegates_item_data in self.delegates:
            delegates_item = delegates_item_data.to_dict()
            delegates.append(delegates_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "delegates": delegates,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.delegate_input import DelegateInput

        d = dict(src_dict)
        delegates = []
        _delegates = d.pop("delegates")
        for delegates_item_data in _delegates:
            delegates_item = DelegateInput.from_dict(delegates_item_data)

            delegates.append(delegates_item)

        put_delegation = cls(
            delegates=delegates,
        )

        return put_delegation
