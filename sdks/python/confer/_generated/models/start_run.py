from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.start_run_input_type_0 import StartRunInputType0
    from ..models.start_run_metadata_type_0 import StartRunMetadataType0


T = TypeVar("T", bound="StartRun")


@_attrs_define
class StartRun:
    """`POST …/runs` body.

    Attributes:
        input_ (None | StartRunInputType0 | Unset): Matches the runner's `inputSchema` (default `{}`).
        metadata (None | StartRunMetadataType0 | Unset):
    """

    input_: None | StartRunInputType0 | Unset = UNSET
    metadata: None | StartRunMetadataType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.start_run_input_type_0 import StartRunInputType0
        from ..models.start_run_metadata_type_0 import StartRunMetadataType0

        input_: dict[str, Any] | None | Unset
        if isinstance(self.input_, Unset):
            input_ = UNSET
        elif isinstance(self.input_, StartRunInputType0):
            input_ = self.input_.to_dict()
        else:
            input_ = self.input_

        metadata: dict[str, Any] | None | Unset
        if isinstance(self.metadata, Unset):
            metadata = UNSET
        elif isinstance(self.metadata, StartRunMetadataType0):
            metadata = self.metadata.to_dict()
        else:
            metadata = self.metadata

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if input_ is not UNSET:
            field_dict["input"] = input_
        if metadata is not UNSET:
            field_dict["metadata"] = metadata

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.start_run_input_type_0 import StartRunInputType0
        from ..models.start_run_metadata_type_0 import StartRunMetadataType0

        d = dict(src_dict)

        def _parse_input_(data: object) -> None | StartRunInputType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                input_type_0 = StartRunInputType0.from_dict(data)

                return input_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | StartRunInputType0 | Unset, data)

        input_ = _parse_input_(d.pop("input", UNSET))

        def _parse_metadata(data: object) -> None | StartRunMetadataType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_0 = StartRunMetadataType0.from_dict(data)

                return metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | StartRunMetadataType0 | Unset, data)

        metadata = _parse_metadata(d.pop("metadata", UNSET))

        start_run = cls(
            input_=input_,
            metadata=metadata,
        )

        start_run.additional_properties = d
        return start_run

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
