from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

if TYPE_CHECKING:
    from ..models.child_trace import ChildTrace
    from ..models.span import Span
    from ..models.trace import Trace


T = TypeVar("T", bound="TraceView")


@_attrs_define
class TraceView:
    """A trace with its spans.

    Attributes:
        children (list[ChildTrace]): The traces of the turns its delegate calls ran (`agent-extras.md`
            §3), in call order.
        spans (list[Span]): In start order; none yet while the turn runs.
        trace (Trace): One turn's trace header.
    """

    children: list[ChildTrace]
    spans: list[Span]
    trace: Trace
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        children = []
        for children_item_data in self.children:
            children_item = children_item_data.to_dict()
            children.append(children_item)

        spans = []
        for spans_item_data in self.spans:
            spans_item = spans_item_data.to_dict()
            spans.append(spans_item)

        trace = self.trace.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "children": children,
                "spans": spans,
                "trace": trace,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.child_trace import ChildTrace
        from ..models.span import Span
        from ..models.trace import Trace

        d = dict(src_dict)
        children = []
        _children = d.pop("children")
        for children_item_data in _children:
            children_item = ChildTrace.from_dict(children_item_data)

            children.append(children_item)

        spans = []
        _spans = d.pop("spans")
        for spans_item_data in _spans:
            spans_item = Span.from_dict(spans_item_data)

            spans.append(spans_item)

        trace = Trace.from_dict(d.pop("trace"))

        trace_view = cls(
            children=children,
            spans=spans,
            trace=trace,
        )

        trace_view.additional_properties = d
        return trace_view

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
