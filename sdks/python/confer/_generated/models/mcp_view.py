from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.listed_tool import ListedTool


T = TypeVar("T", bound="McpView")


@_attrs_define
class McpView:
    """An MCP server as admins and members see it (never its secrets).

    Attributes:
        args (list[str]):
        created_at (str):
        has_credentials (bool):
        id (str):
        name (str):
        oauth (str):
        org_id (str):
        slug (str):
        status (str):
        timeout_ms (int):
        tools_cache (list[ListedTool]):
        transport (str):
        updated_at (str):
        allowed_tools (list[str] | None | Unset):
        command (None | str | Unset):
        last_error (None | str | Unset):
        oauth_client_id (None | str | Unset):
        tools_refreshed_at (None | str | Unset):
        url (None | str | Unset):
    """

    args: list[str]
    created_at: str
    has_credentials: bool
    id: str
    name: str
    oauth: str
    org_id: str
    slug: str
    status: str
    timeout_ms: int
    tools_cache: list[ListedTool]
    transport: str
    updated_at: str
    allowed_tools: list[str] | None | Unset = UNSET
    command: None | str | Unset = UNSET
    last_error: None | str | Unset = UNSET
    oauth_client_id: None | str | Unset = UNSET
    tools_refreshed_at: None | str | Unset = UNSET
    url: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        args = self.args

        created_at = self.created_at

        has_credentials = self.has_credentials

        id = self.id

        name = self.name

        oauth = self.oauth

        org_id = self.org_id

        slug = self.slug

        status = self.status

        timeout_ms = self.timeout_ms

        tools_cache = []
        for tools_cache_item_data in self.tools_cache:
            tools_cache_item = tools_cache_item_data.to_dict()
            tools_cache.append(tools_cache_item)

        transport = self.transport

        updated_at = self.updated_at

        allowed_tools: list[str] | None | Unset
        if isinstance(self.allowed_tools, Unset):
            allowed_tools = UNSET
        elif isinstance(self.allowed_tools, list):
            allowed_tools = self.allowed_tools

        else:
            allowed_tools = self.allowed_tools

        command: None | str | Unset
        if isinstance(self.command, Unset):
            command = UNSET
        else:
            command = self.command

        last_error: None | str | Unset
        if isinstance(self.last_error, Unset):
            last_error = UNSET
        else:
            last_error = self.last_error

        oauth_client_id: None | str | Unset
        if isinstance(self.oauth_client_id, Unset):
            oauth_client_id = UNSET
        else:
            oauth_client_id = self.oauth_client_id

        tools_refreshed_at: None | str | Unset
        if isinstance(self.tools_refreshed_at, Unset):
            tools_refreshed_at = UNSET
        else:
            tools_refreshed_at = self.tools_refreshed_at

        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "args": args,
                "created_at": created_at,
                "has_credentials": has_credentials,
                "id": id,
                "name": name,
                "oauth": oauth,
                "org_id": org_id,
                "slug": slug,
                "status": status,
                "timeout_ms": timeout_ms,
                "tools_cache": tools_cache,
                "transport": transport,
                "updated_at": updated_at,
            }
        )
        if allowed_tools is not UNSET:
            field_dict["allowed_tools"] = allowed_tools
        if command is not UNSET:
            field_dict["command"] = command
        if last_error is not UNSET:
            field_dict["last_error"] = last_error
        if oauth_client_id is not UNSET:
            field_dict["oauth_client_id"] = oauth_client_id
        if tools_refreshed_at is not UNSET:
            field_dict["tools_refreshed_at"] = tools_refreshed_at
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.listed_tool import ListedTool

        d = dict(src_dict)
        args = cast(list[str], d.pop("args"))

        created_at = d.pop("created_at")

        has_credentials = d.pop("has_credentials")

        id = d.pop("id")

        name = d.pop("name")

        oauth = d.pop("oauth")

        org_id = d.pop("org_id")

        slug = d.pop("slug")

        status = d.pop("status")

        timeout_ms = d.pop("timeout_ms")

        tools_cache = []
        _tools_cache = d.pop("tools_cache")
        for tools_cache_item_data in _tools_cache:
            tools_cache_item = ListedTool.from_dict(tools_cache_item_data)

            tools_cache.append(tools_cache_item)

        transport = d.pop("transport")

        updated_at = d.pop("updated_at")

        def _parse_allowed_tools(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                allowed_tools_type_0 = cast(list[str], data)

                return allowed_tools_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        allowed_tools = _parse_allowed_tools(d.pop("allowed_tools", UNSET))

        def _parse_command(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        command = _parse_command(d.pop("command", UNSET))

        def _parse_last_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        last_error = _parse_last_error(d.pop("last_error", UNSET))

        def _parse_oauth_client_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        oauth_client_id = _parse_oauth_client_id(d.pop("oauth_client_id", UNSET))

        def _parse_tools_refreshed_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tools_refreshed_at = _parse_tools_refreshed_at(d.pop("tools_refreshed_at", UNSET))

        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))

        mcp_view = cls(
            args=args,
            created_at=created_at,
            has_credentials=has_credentials,
            id=id,
            name=name,
            oauth=oauth,
            org_id=org_id,
            slug=slug,
            status=status,
            timeout_ms=timeout_ms,
            tools_cache=tools_cache,
            transport=transport,
            updated_at=updated_at,
            allowed_tools=allowed_tools,
            command=command,
            last_error=last_error,
            oauth_client_id=oauth_client_id,
            tools_refreshed_at=tools_refreshed_at,
            url=url,
        )

        mcp_view.additional_properties = d
        return mcp_view

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
