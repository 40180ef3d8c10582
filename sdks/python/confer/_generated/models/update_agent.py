from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.update_agent_tool_profiles_type_0 import UpdateAgentToolProfilesType0


T = TypeVar("T", bound="UpdateAgent")


@_attrs_define
class UpdateAgent:
    """`PATCH /api/agents/{id}` body: only the fields present change.

    Attributes:
        default_model (None | str | Unset):
        default_profile (None | str | Unset):
        description (None | str | Unset):
        name (None | str | Unset):
        project_id (None | str | Unset): A project of the org, or null for none.
        runtime_provider (None | str | Unset):
        stable_preamble (None | str | Unset):
        tool_profiles (None | Unset | UpdateAgentToolProfilesType0):
    """

    default_model: None | str | Unset = UNSET
    default_profile: None | str | Unset = UNSET
    description: None | str | Unset = UNSET
    name: None | str | Unset = UNSET
    project_id: None | str | Unset = UNSET
    runtime_provider: None | str | Unset = UNSET
    stable_preamble: None | str | Unset = UNSET
    tool_profiles: None | Unset | UpdateAgentToolProfilesType0 = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.update_agent_tool_profiles_type_0 import UpdateAgentToolProfilesType0

        default_model: None | str | Unset
        if isinstance(self.default_model, Unset):
            default_model = UNSET
        else:
            default_model = self.default_model

        default_profile: None | str | Unset
        if isinstance(self.default_profile, Unset):
            default_profile = UNSET
        else:
            default_profile = self.default_profile

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        project_id: None | str | Unset
        if isinstance(self.project_id, Unset):
            project_id = UNSET
        else:
            project_id = self.project_id

        runtime_provider: None | str | Unset
        if isinstance(self.runtime_provider, Unset):
            runtime_provider = UNSET
        else:
            runtime_provider = self.runtime_provider

        stable_preamble: None | str | Unset
        if isinstance(self.stable_preamble, Unset):
            stable_preamble = UNSET
        else:
            stable_preamble = self.stable_preamble

        tool_profiles: dict[str, Any] | None | Unset
        if isinstance(self.tool_profiles, Unset):
            tool_profiles = UNSET
        elif isinstance(self.tool_profiles, UpdateAgentToolProfilesType0):
            tool_profiles = self.tool_profiles.to_dict()
        else:
            tool_profiles = self.tool_profiles

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if default_model is not UNSET:
            field_dict["defaultModel"] = default_model
        if default_profile is not UNSET:
            field_dict["defaultProfile"] = default_profile
        if description is not UNSET:
            field_dict["description"] = description
        if name is not UNSET:
            field_dict["name"] = name
        if project_id is not UNSET:
            field_dict["projectId"] = project_id
        if runtime_provider is not UNSET:
            field_dict["runtimeProvider"] = runtime_provider
        if stable_preamble is not UNSET:
            field_dict["stablePreamble"] = stable_preamble
        if tool_profiles is not UNSET:
            field_dict["toolProfiles"] = tool_profiles

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.update_agent_tool_profiles_type_0 import UpdateAgentToolProfilesType0

        d = dict(src_dict)

        def _parse_default_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        default_model = _parse_default_model(d.pop("defaultModel", UNSET))

        def _parse_default_profile(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        default_profile = _parse_default_profile(d.pop("defaultProfile", UNSET))

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_project_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        project_id = _parse_project_id(d.pop("projectId", UNSET))

        def _parse_runtime_provider(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        runtime_provider = _parse_runtime_provider(d.pop("runtimeProvider", UNSET))

        def _parse_stable_preamble(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        stable_preamble = _parse_stable_preamble(d.pop("stablePreamble", UNSET))

        def _parse_tool_profiles(data: object) -> None | Unset | UpdateAgentToolProfilesType0:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                tool_profiles_type_0 = UpdateAgentToolProfilesType0.from_dict(data)

                return tool_profiles_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UpdateAgentToolProfilesType0, data)

        tool_profiles = _parse_tool_profiles(d.pop("toolProfiles", UNSET))

        update_agent = cls(
            default_model=default_model,
            default_profile=default_profile,
            description=description,
            name=name,
            project_id=project_id,
            runtime_provider=runtime_provider,
            stable_preamble=stable_preamble,
            tool_profiles=tool_profiles,
        )

        update_agent.additional_properties = d
        return update_agent

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
