from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

if TYPE_CHECKING:
    from ..models.agent_analytics import AgentAnalytics
    from ..models.daily_view import DailyView
    from ..models.model_view import ModelView
    from ..models.period_view import PeriodView
    from ..models.summary import Summary
    from ..models.tool_analytics import ToolAnalytics


T = TypeVar("T", bound="Analytics")


@_attrs_define
class Analytics:
    """The analytics of a period.

    Attributes:
        by_agent (list[AgentAnalytics]):
        by_model (list[ModelView]):
        daily (list[DailyView]):
        period (PeriodView): `period` of the answer.
        summary (Summary): `summary` of the answer.
        top_tools (list[ToolAnalytics]):
    """

    by_agent: list[AgentAnalytics]
    by_model: list[ModelView]
    daily: list[DailyView]
    period: PeriodView
    summary: Summary
    top_tools: list[ToolAnalytics]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        by_agent = []
        for by_agent_item_data in self.by_agent:
            by_agent_item = by_agent_item_data.to_dict()
            by_agent.append(by_agent_item)

        by_model = []
        for by_model_item_data in self.by_model:
            by_model_item = by_model_item_data.to_dict()
            by_model.append(by_model_item)

        daily = []
        for daily_item_data in self.daily:
            daily_item = daily_item_data.to_dict()
            daily.append(daily_item)

        period = self.period.to_dict()

        summary = self.summary.to_dict()

        top_tools = []
        for top_tools_item_data in self.top_tools:
            top_tools_item = top_tools_item_data.to_dict()
            top_tools.append(top_tools_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "by_agent": by_agent,
                "by_model": by_model,
                "daily": daily,
                "period": period,
                "summary": summary,
                "top_tools": top_tools,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.agent_analytics import AgentAnalytics
        from ..models.daily_view import DailyView
        from ..models.model_view import ModelView
        from ..models.period_view import PeriodView
        from ..models.summary import Summary
        from ..models.tool_analytics import ToolAnalytics

        d = dict(src_dict)
        by_agent = []
        _by_agent = d.pop("by_agent")
        for by_agent_item_data in _by_agent:
            by_agent_item = AgentAnalytics.from_dict(by_agent_item_data)

            by_agent.append(by_agent_item)

        by_model = []
        _by_model = d.pop("by_model")
        for by_model_item_data in _by_model:
            by_model_item = ModelView.from_dict(by_model_item_data)

            by_model.append(by_model_item)

        daily = []
        _daily = d.pop("daily")
        for daily_item_data in _daily:
            daily_item = DailyView.from_dict(daily_item_data)

            daily.append(daily_item)

        period = PeriodView.from_dict(d.pop("period"))

        summary = Summary.from_dict(d.pop("summary"))

        top_tools = []
        _top_tools = d.pop("top_tools")
        for top_tools_item_data in _top_tools:
            top_tools_item = ToolAnalytics.from_dict(top_tools_item_data)

            top_tools.append(top_tools_item)

        analytics = cls(
            by_agent=by_agent,
            by_model=by_model,
            daily=daily,
            period=period,
            summary=summary,
            top_tools=top_tools,
        )

        analytics.additional_properties = d
        return analytics

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
