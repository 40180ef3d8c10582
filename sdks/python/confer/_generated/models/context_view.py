from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.context_block_type_0 import ContextBlockType0
    from ..models.context_block_type_1 import ContextBlockType1
    from ..models.context_block_type_2 import ContextBlockType2
    from ..models.context_block_type_3 import ContextBlockType3
    from ..models.context_block_type_4 import ContextBlockType4
    from ..models.context_block_type_5 import ContextBlockType5
    from ..models.context_block_type_6 import ContextBlockType6
    from ..models.context_block_type_7 import ContextBlockType7


T = TypeVar("T", bound="ContextView")


@_attrs_define
class ContextView:
    """The `GET .../context` answer.

    Attributes:
        blocks (list[ContextBlockType0 | ContextBlockType1 | ContextBlockType2 | ContextBlockType3 | ContextBlockType4 |
            ContextBlockType5 | ContextBlockType6 | ContextBlockType7]):
        estimated_tokens (int): Characters ÷ 4 of everything the next call sends.
        compacted_at (None | str | Unset):
    """

    blocks: list[
        ContextBlockType0
        | ContextBlockType1
        | ContextBlockType2
        | ContextBlockType3
        | ContextBlockType4
        | ContextBlockType5
        | ContextBlockType6
        | ContextBlockType7
    ]
    estimated_tokens: int
    compacted_at: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.context_block_type_0 import ContextBlockType0
        from ..models.context_block_type_1 import ContextBlockType1
        from ..models.context_block_type_2 import ContextBlockType2
        from ..models.context_block_type_3 import ContextBlockType3
        from ..models.context_block_type_4 import ContextBlockType4
        from ..models.context_block_type_5 import ContextBlockType5
        from ..models.context_block_type_6 import ContextBlockType6

        blocks = []
        for blocks_item_data in self.blocks:
            blocks_item: dict[str, Any]
            if (
                isinstance(blocks_item_data, ContextBlockType0)
                or isinstance(blocks_item_data, ContextBlockType1)
                or isinstance(blocks_item_data, ContextBlockType2)
                or isinstance(blocks_item_data, ContextBlockType3)
                or isinstance(blocks_item_data, ContextBlockType4)
                or isinstance(blocks_item_data, ContextBlockType5)
                or isinstance(blocks_item_data, ContextBlockType6)
            ):
                blocks_item = blocks_item_data.to_dict()
            else:
                blocks_item = blocks_item_data.to_dict()

            blocks.append(blocks_item)

        estimated_tokens = self.estimated_tokens

        compacted_at: None | str | Unset
        if isinstance(self.compacted_at, Unset):
            compacted_at = UNSET
        else:
            compacted_at = self.compacted_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "blocks": blocks,
                "estimated_tokens": estimated_tokens,
            }
        )
        if compacted_at is not UNSET:
            field_dict["compacted_at"] = compacted_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.context_block_type_0 import ContextBlockType0
        from ..models.context_block_type_1 import ContextBlockType1
        from ..models.context_block_type_2 import ContextBlockType2
        from ..models.context_block_type_3 import ContextBlockType3
        from ..models.context_block_type_4 import ContextBlockType4
        from ..models.context_block_type_5 import ContextBlockType5
        from ..models.context_block_type_6 import ContextBlockType6
        from ..models.context_block_type_7 import ContextBlockType7

        d = dict(src_dict)
        blocks = []
        _blocks = d.pop("blocks")
        for blocks_item_data in _blocks:

            def _parse_blocks_item(
                data: object,
            ) -> (
                ContextBlockType0
                | ContextBlockType1
                | ContextBlockType2
                | ContextBlockType3
                | ContextBlockType4
                | ContextBlockType5
                | ContextBlockType6
                | ContextBlockType7
            ):
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_context_block_type_0 = ContextBlockType0.from_dict(data)

                    return componentsschemas_context_block_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_context_block_type_1 = ContextBlockType1.from_dict(data)

                    return componentsschemas_context_block_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_context_block_type_2 = ContextBlockType2.from_dict(data)

                    return componentsschemas_context_block_type_2
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_context_block_type_3 = ContextBlockType3.from_dict(data)

                    return componentsschemas_context_block_type_3
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_context_block_type_4 = ContextBlockType4.from_dict(data)

                    return componentsschemas_context_block_type_4
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_context_block_type_5 = ContextBlockType5.from_dict(data)

                    return componentsschemas_context_block_type_5
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_context_block_type_6 = ContextBlockType6.from_dict(data)

                    return componentsschemas_context_block_type_6
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_block_type_7 = ContextBlockType7.from_dict(data)

                return componentsschemas_context_block_type_7

            blocks_item = _parse_blocks_item(blocks_item_data)

            blocks.append(blocks_item)

        estimated_tokens = d.pop("estimated_tokens")

        def _parse_compacted_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        compacted_at = _parse_compacted_at(d.pop("compacted_at", UNSET))

        context_view = cls(
            blocks=blocks,
            estimated_tokens=estimated_tokens,
            compacted_at=compacted_at,
        )

        context_view.additional_properties = d
        return context_view

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
