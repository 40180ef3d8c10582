from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.capability import Capability
    from ..models.plan_config import PlanConfig
    from ..models.template_tool_profiles import TemplateToolProfiles


T = TypeVar("T", bound="Template")


@_attrs_define
class Template:
    """One official template, as its file holds it.

    Attributes:
        capabilities (list[Capability]):
        category (str):
        default_model (str): `""`: the platform's default model.
        description (str):
        id (str):
        mcp (list[str]): MCP registry names whose first remote a `use` attaches.
        plan (PlanConfig): Per-agent plan configuration (`plans.md`): whether the built-in plan
            tools are offered, whether the agent is told to plan multi-step
            requests, and whether a tool-made plan waits for a client's approval.
        stable_preamble (str):
        tags (list[str]):
        title (str):
        tool_profiles (TemplateToolProfiles):
        tools (list[str]): The built-in tools it uses.
        version (str): Semantic version of the template.
        default_profile (None | str | Unset):
    """

    capabilities: list[Capability]
    category: str
    default_model: str
    description: str
    id: str
    mcp: list[str]
    plan: PlanConfig
    stable_preamble: str
    tags: list[str]
    title: str
    tool_profiles: TemplateToolProfiles
    tools: list[str]
    version: str
    default_profile: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        capabilities = []
        for capabilities_item_data in self.capabilities:
            capabilities_item = capabilities_item_data.to_dict()
            capabilities.append(capabilities_item)

        category = self.category

        default_model = self.default_model

        description = self.description

        id = self.id

        mcp = self.mcp

        plan = self.plan.to_dict()

        stable_preamble = self.stable_preamble

        tags = self.tags

        title = self.title

        tool_profiles = self.tool_profiles.to_dict()

        tools = self.tools

        version = self.version

        default_profile: None | str | Unset
        if isinstance(self.default_profile, Unset):
            default_profile = UNSET
        else:
            default_profile = self.default_profile

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "capabilities": capabilities,
                "category": category,
                "default_model": default_model,
                "description": description,
                "id": id,
                "mcp": mcp,
                "plan": plan,
                "stable_preamble": stable_preamble,
                "tags": tags,
                "title": title,
                "tool_profiles": tool_profiles,
                "tools": tools,
                "version": version,
            }
        )
        if default_profile is not UNSET:
            field_dict["default_profile"] = default_profile

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.capability import Capability
        from ..models.plan_config import PlanConfig
        from ..models.template_tool_profiles import TemplateToolProfiles

        d = dict(src_dict)
        capabilities = []
        _capabilities = d.pop("capabilities")
        for capabilities_item_data in _capabilities:
            capabilities_item = Capability.from_dict(capabilities_item_data)

            capabilities.append(capabilities_item)

        category = d.pop("category")

        default_model = d.pop("default_model")

        description = d.pop("description")

        id = d.pop("id")

        mcp = cast(list[str], d.pop("mcp"))

        plan = PlanConfig.from_dict(d.pop("plan"))

        stable_preamble = d.pop("stable_preamble")

        tags = cast(list[str], d.pop("tags"))

        title = d.pop("title")

        tool_profiles = TemplateToolProfiles.from_dict(d.pop("tool_profiles"))

        tools = cast(list[str], d.pop("tools"))

        version = d.pop("version")

        def _parse_default_profile(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        default_profile = _parse_default_profile(d.pop("default_profile", UNSET))

        template = cls(
            capabilities=capabilities,
            category=category,
            default_model=default_model,
            description=description,
            id=id,
            mcp=mcp,
            plan=plan,
            stable_preamble=stable_preamble,
            tags=tags,
            title=title,
            tool_profiles=tool_profiles,
            tools=tools,
            version=version,
            default_profile=default_profile,
        )

        return template
