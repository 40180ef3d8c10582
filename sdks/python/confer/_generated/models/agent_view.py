from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.runtime_provider import RuntimeProvider
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.agent_view_tool_profiles_type_0 import AgentViewToolProfilesType0
    from ..models.published_chat import PublishedChat


T = TypeVar("T", bound="AgentView")


@_attrs_define
class AgentView:
    """The agent as every endpoint returns it.

    Attributes:
        created_at (str):
        default_model (str):
        description (str):
        id (str):
        name (str):
        org_id (str):
        published_chats (list[PublishedChat]): `[]`, or the agent's publication (`publishing.md` §8).
        runtime_provider (RuntimeProvider): The execution runtime of an agent's sandboxed tools.
        stable_preamble (str):
        updated_at (str):
        default_profile (None | str | Unset):
        project_id (None | str | Unset): The project it belongs to, else null (membership grants nothing on
            agents).
        tool_profiles (AgentViewToolProfilesType0 | None | Unset):
    """

    created_at: str
    default_model: str
    description: str
    id: str
    name: str
    org_id: str
    published_chats: list[PublishedChat]
    runtime_provider: RuntimeProvider
    stable_preamble: str
    updated_at: str
    default_profile: None | str | Unset = UNSET
    project_id: None | str | Unset = UNSET
    tool_profiles: AgentViewToolProfilesType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.agent_view_tool_profiles_type_0 import AgentViewToolProfilesType0

        created_at = self.created_at

        default_model = self.default_model

        description = self.description

        id = self.id

        name = self.name

        org_id = self.org_id

        published_chats = []
        for published_chats_item_data in self.published_chats:
            published_chats_item = published_chats_item_data.to_dict()
            published_chats.append(published_chats_item)

        runtime_provider = self.runtime_provider.value

        stable_preamble = self.stable_preamble

        updated_at = self.updated_at

        default_profile: None | str | Unset
        if isinstance(self.default_profile, Unset):
            default_profile = UNSET
        else:
            default_profile = self.default_profile

        project_id: None | str | Unset
        if isinstance(self.project_id, Unset):
            project_id = UNSET
        else:
            project_id = self.project_id

        tool_profiles: dict[str, Any] | None | Unset
        if isinstance(self.tool_profiles, Unset):
            tool_profiles = UNSET
        elif isinstance(self.tool_profiles, AgentViewToolProfilesType0):
            tool_profiles = self.tool_profiles.to_dict()
        else:
            tool_profiles = self.tool_profiles

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "default_model": default_model,
                "description": description,
                "id": id,
                "name": name,
                "org_id": org_id,
                "published_chats": published_chats,
                "runtime_provider": runtime_provider,
                "stable_preamble": stable_preamble,
                "updated_at": updated_at,
            }
        )
        if default_profile is not UNSET:
            field_dict["default_profile"] = default_profile
        if project_id is not UNSET:
            field_dict["project_id"] = project_id
        if tool_profiles is not UNSET:
            field_dict["tool_profiles"] = tool_profiles

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.agent_view_tool_profiles_type_0 import AgentViewToolProfilesType0
        from ..models.published_chat import PublishedChat

        d = dict(src_dict)
        created_at = d.pop("created_at")

        default_model = d.pop("default_model")

        description = d.pop("description")

        id = d.pop("id")

        name = d.pop("name")

        org_id = d.pop("org_id")

        published_chats = []
        _published_chats = d.pop("published_chats")
        for published_chats_item_data in _published_chats:
            published_chats_item = PublishedChat.from_dict(published_chats_item_data)

            published_chats.append(published_chats_item)

        runtime_provider = RuntimeProvider(d.pop("runtime_provider"))

        stable_preamble = d.pop("stable_preamble")

        updated_at = d.pop("updated_at")

        def _parse_default_profile(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        default_profile = _parse_default_profile(d.pop("default_profile", UNSET))

        def _parse_project_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        project_id = _parse_project_id(d.pop("project_id", UNSET))

        def _parse_tool_profiles(data: object) -> AgentViewToolProfilesType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                tool_profiles_type_0 = AgentViewToolProfilesType0.from_dict(data)

                return tool_profiles_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AgentViewToolProfilesType0 | None | Unset, data)

        tool_profiles = _parse_tool_profiles(d.pop("tool_profiles", UNSET))

        agent_view = cls(
            created_at=created_at,
            default_model=default_model,
            description=description,
            id=id,
            name=name,
            org_id=org_id,
            published_chats=published_chats,
            runtime_provider=runtime_provider,
            stable_preamble=stable_preamble,
            updated_at=updated_at,
            default_profile=default_profile,
            project_id=project_id,
            tool_profiles=tool_profiles,
        )

        agent_view.additional_properties = d
        return agent_view

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
