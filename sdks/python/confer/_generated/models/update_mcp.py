from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field
from typing_extensions import Self

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.credentials_body import CredentialsBody
    from ..models.o_auth_client_body import OAuthClientBody


T = TypeVar("T", bound="UpdateMcp")


@_attrs_define
class UpdateMcp:
    """`PATCH /api/mcps/{id}` body: the create fields but `transport`;
    `credentials` replaces the stored ones (`null` removes them).

        Attributes:
            allowed_tools (list[str] | None | Unset):
            args (list[str] | None | Unset):
            command (None | str | Unset):
            credentials (CredentialsBody | None | Unset):
            name (None | str | Unset):
            oauth (None | str | Unset):
            oauth_client (None | OAuthClientBody | Unset):
            timeout_ms (int | None | Unset):
            transport (None | str | Unset): Refused: a server's transport never changes.
            url (None | str | Unset):
    """

    allowed_tools: list[str] | None | Unset = UNSET
    args: list[str] | None | Unset = UNSET
    command: None | str | Unset = UNSET
    credentials: CredentialsBody | None | Unset = UNSET
    name: None | str | Unset = UNSET
    oauth: None | str | Unset = UNSET
    oauth_client: None | OAuthClientBody | Unset = UNSET
    timeout_ms: int | None | Unset = UNSET
    transport: None | str | Unset = UNSET
    url: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.credentials_body import CredentialsBody
        from ..models.o_auth_client_body import OAuthClientBody

        allowed_tools: list[str] | None | Unset
        if isinstance(self.allowed_tools, Unset):
            allowed_tools = UNSET
        elif isinstance(self.allowed_tools, list):
            allowed_tools = self.allowed_tools

        else:
            allowed_tools = self.allowed_tools

        args: list[str] | None | Unset
        if isinstance(self.args, Unset):
            args = UNSET
        elif isinstance(self.args, list):
            args = self.args

        else:
            args = self.args

        command: None | str | Unset
        if isinstance(self.command, Unset):
            command = UNSET
        else:
            command = self.command

        credentials: dict[str, Any] | None | Unset
        if isinstance(self.credentials, Unset):
            credentials = UNSET
        elif isinstance(self.credentials, CredentialsBody):
            credentials = self.credentials.to_dict()
        else:
            credentials = self.credentials

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        oauth: None | str | Unset
        if isinstance(self.oauth, Unset):
            oauth = UNSET
        else:
            oauth = self.oauth

        oauth_client: dict[str, Any] | None | Unset
        if isinstance(self.oauth_client, Unset):
            oauth_client = UNSET
        elif isinstance(self.oauth_client, OAuthClientBody):
            oauth_client = self.oauth_client.to_dict()
        else:
            oauth_client = self.oauth_client

        timeout_ms: int | None | Unset
        if isinstance(self.timeout_ms, Unset):
            timeout_ms = UNSET
        else:
            timeout_ms = self.timeout_ms

        transport: None | str | Unset
        if isinstance(self.transport, Unset):
            transport = UNSET
        else:
            transport = self.transport

        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if allowed_tools is not UNSET:
            field_dict["allowedTools"] = allowed_tools
        if args is not UNSET:
            field_dict["args"] = args
        if command is not UNSET:
            field_dict["command"] = command
        if credentials is not UNSET:
            field_dict["credentials"] = credentials
        if name is not UNSET:
            field_dict["name"] = name
        if oauth is not UNSET:
            field_dict["oauth"] = oauth
        if oauth_client is not UNSET:
            field_dict["oauthClient"] = oauth_client
        if timeout_ms is not UNSET:
            field_dict["timeoutMs"] = timeout_ms
        if transport is not UNSET:
            field_dict["transport"] = transport
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.credentials_body import CredentialsBody
        from ..models.o_auth_client_body import OAuthClientBody

        d = dict(src_dict)

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

        allowed_tools = _parse_allowed_tools(d.pop("allowedTools", UNSET))

        def _parse_args(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                args_type_0 = cast(list[str], data)

                return args_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        args = _parse_args(d.pop("args", UNSET))

        def _parse_command(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        command = _parse_command(d.pop("command", UNSET))

        def _parse_credentials(data: object) -> CredentialsBody | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                credentials_type_0 = CredentialsBody.from_dict(data)

                return credentials_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CredentialsBody | None | Unset, data)

        credentials = _parse_credentials(d.pop("credentials", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_oauth(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        oauth = _parse_oauth(d.pop("oauth", UNSET))

        def _parse_oauth_client(data: object) -> None | OAuthClientBody | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                oauth_client_type_0 = OAuthClientBody.from_dict(data)

                return oauth_client_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OAuthClientBody | Unset, data)

        oauth_client = _parse_oauth_client(d.pop("oauthClient", UNSET))

        def _parse_timeout_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        timeout_ms = _parse_timeout_ms(d.pop("timeoutMs", UNSET))

        def _parse_transport(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        transport = _parse_transport(d.pop("transport", UNSET))

        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))

        update_mcp = cls(
            allowed_tools=allowed_tools,
            args=args,
            command=command,
            credentials=credentials,
            name=name,
            oauth=oauth,
            oauth_client=oauth_client,
            timeout_ms=timeout_ms,
            transport=transport,
            url=url,
        )

        update_mcp.additional_properties = d
        return update_mcp

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
