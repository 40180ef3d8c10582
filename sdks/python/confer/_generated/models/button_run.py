from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.button_run_input_type_0 import ButtonRunInputType0


T = TypeVar("T", bound="ButtonRun")


@_attrs_define
class ButtonRun:
    """`POST R/button` body.

    Attributes:
        input_ (ButtonRunInputType0 | None | Unset): Matches the runner's `inputSchema`.
    """

    input_: ButtonRunInputType0 | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.button_run_input_type_0 import ButtonRunInputType0

        input_: dict[str, Any] | None | Unset
        if isinstance(self.input_, Unset):
            input_ = UNSET
        elif isinstance(self.input_, ButtonRunInputType0):
            input_ = self.input_.to_dict()
        else:
            input_ = self.input_

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if input_ is not UNSET:
            field_dict["input"] = input_

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.button_run_input_type_0 import ButtonRunInputType0

        d = dict(src_dict)

        def _parse_input_(data: object) -> ButtonRunInputType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                input_type_0 = ButtonRunInputType0.from_dict(data)

                return input_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ButtonRunInputType0 | None | Unset, data)

        input_ = _parse_input_(d.pop("input", UNSET))

        button_run = cls(
            input_=input_,
        )

        return button_run
