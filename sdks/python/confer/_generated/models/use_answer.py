from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

if TYPE_CHECKING:
    from ..models.adopted_server import AdoptedServer
    from ..models.agent_view import AgentView
    from ..models.skipped import Skipped
    from ..models.source_ref import SourceRef


T = TypeVar("T", bound="UseAnswer")


@_attrs_define
class UseAnswer:
    """`use`'s answer.

    Attributes:
        agent (AgentView): The agent as every endpoint returns it.
        mcp_servers (list[AdoptedServer]):
        skipped (list[Skipped]):
        source (SourceRef): Where the new agent comes from (`source` of the answer).
    """

    agent: AgentView
    mcp_servers: list[AdoptedServer]
    skipped: list[Skipped]
    source: SourceRef
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent = self.agent.to_dict()

        mcp_servers = []
        for mcp_servers_item_data in self.mcp_servers:
            mcp_servers_item = mcp_servers_item_data.to_dict()
            mcp_servers.append(mcp_servers_item)

        skipped = []
        for skipped_item_data in self.skipped:
            skipped_item = skipped_item_data.to_dict()
            skipped.append(skipped_item)

        source = self.source.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent": agent,
                "mcp_servers": mcp_servers,
                "skipped": skipped,
                "source": source,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.adopted_server import AdoptedServer
        from ..models.agent_view import AgentView
        from ..models.skipped import Skipped
        from ..models.source_ref import SourceRef

        d = dict(src_dict)
        agent = AgentView.from_dict(d.pop("agent"))

        mcp_servers = []
        _mcp_servers = d.pop("mcp_servers")
        for mcp_servers_item_data in _mcp_servers:
            mcp_servers_item = AdoptedServer.from_dict(mcp_servers_item_data)

            mcp_servers.append(mcp_servers_item)

        skipped = []
        _skipped = d.pop("skipped")
        for skipped_item_data in _skipped:
            skipped_item = Skipped.from_dict(skipped_item_data)

            skipped.append(skipped_item)

        source = SourceRef.from_dict(d.pop("source"))

        use_answer = cls(
            agent=agent,
            mcp_servers=mcp_servers,
            skipped=skipped,
            source=source,
        )

        use_answer.additional_properties = d
        return use_answer

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
