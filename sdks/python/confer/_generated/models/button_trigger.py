from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..models.trigger_kind import TriggerKind
from ..types import UNSET, Unset

T = TypeVar("T", bound="ButtonTrigger")


@_attrs_define
class ButtonTrigger:
    """A button trigger as answered and listed.

    Attributes:
        daily_runs (int): Runs a UTC day, all addresses together.
        public_tools (list[str]): The only server-side tools a button run is offered.
        rate_limit_per_min (int): Runs a minute per client address.
        title (str): The page's heading and the launcher's name.
        created_at (datetime.datetime):
        embed_snippet (str): `<script async src="{public_url}/api/runners/{id}/embed.js"></script>`.
        enabled (bool):
        id (UUID):
        kind (TriggerKind): What started a run.
        org_id (UUID):
        runner_id (UUID):
        updated_at (datetime.datetime):
        allowed_origins (list[str] | None | Unset): Who may frame the page; `null`: the org's `allowedEmbedDomains`.
            Either way only entries the org's list covers count.
    """

    daily_runs: int
    public_tools: list[str]
    rate_limit_per_min: int
    title: str
    created_at: datetime.datetime
    embed_snippet: str
    enabled: bool
    id: UUID
    kind: TriggerKind
    org_id: UUID
    runner_id: UUID
    updated_at: datetime.datetime
    allowed_origins: list[str] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        daily_runs = self.daily_runs

        public_tools = self.public_tools

        rate_limit_per_min = self.rate_limit_per_min

        title = self.title

        created_at = self.created_at.isoformat()

        embed_snippet = self.embed_snippet

        enabled = self.enabled

        id = str(self.id)

        kind = self.kind.value

        org_id = str(self.org_id)

        runner_id = str(self.runner_id)

        updated_at = self.updated_at.isoformat()

        allowed_origins: list[str] | None | Unset
        if isinstance(self.allowed_origins, Unset):
            allowed_origins = UNSET
        elif isinstance(self.allowed_origins, list):
            allowed_origins = self.allowed_origins

        else:
            allowed_origins = self.allowed_origins

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "daily_runs": daily_runs,
                "public_tools": public_tools,
                "rate_limit_per_min": rate_limit_per_min,
                "title": title,
                "created_at": created_at,
                "embed_snippet": embed_snippet,
                "enabled": enabled,
                "id": id,
                "kind": kind,
                "org_id": org_id,
                "runner_id": runner_id,
                "updated_at": updated_at,
            }
        )
        if allowed_origins is not UNSET:
            field_dict["allowed_origins"] = allowed_origins

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        daily_runs = d.pop("daily_runs")

        public_tools = cast(list[str], d.pop("public_tools"))

        rate_limit_per_min = d.pop("rate_limit_per_min")

        title = d.pop("title")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        embed_snippet = d.pop("embed_snippet")

        enabled = d.pop("enabled")

        id = UUID(d.pop("id"))

        kind = TriggerKind(d.pop("kind"))

        org_id = UUID(d.pop("org_id"))

        runner_id = UUID(d.pop("runner_id"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        def _parse_allowed_origins(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                allowed_origins_type_0 = cast(list[str], data)

                return allowed_origins_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        allowed_origins = _parse_allowed_origins(d.pop("allowed_origins", UNSET))

        button_trigger = cls(
            daily_runs=daily_runs,
            public_tools=public_tools,
            rate_limit_per_min=rate_limit_per_min,
            title=title,
            created_at=created_at,
            embed_snippet=embed_snippet,
            enabled=enabled,
            id=id,
            kind=kind,
            org_id=org_id,
            runner_id=runner_id,
            updated_at=updated_at,
            allowed_origins=allowed_origins,
        )

        button_trigger.additional_properties = d
        return button_trigger

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
