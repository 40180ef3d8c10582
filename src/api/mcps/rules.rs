//! The rules of an MCP server's fields (`tools.md` §6), each a 422 naming
//! the field.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::secrets::{NamesOnly, redacted};
use crate::state::AppState;
use crate::store::mcps::{McpCredentials, McpTransport, OAuthClient, OAuthMode};
use crate::tools::mcp::stdio::{RESERVED_ENV, valid_env_name};

const TIMEOUT_RANGE_MS: std::ops::RangeInclusive<i64> = 1_000..=120_000;
/// A server's timeout when its creation names none.
pub(super) const DEFAULT_TIMEOUT_MS: u32 = 30_000;
const MAX_NAME_CHARS: usize = 100;
/// Headers the MCP transports set themselves.
const RESERVED_HEADERS: [&str; 6] = [
    "accept",
    "content-type",
    "content-length",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
];

/// `credentials` as sent (write-only).
#[derive(Clone, Default, Deserialize, utoipa::ToSchema)]
pub struct CredentialsBody {
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
}

/// `oauthClient` as sent (the secret write-only).
#[derive(Clone, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OAuthClientBody {
    pub(super) client_id: String,
    pub(super) client_secret: Option<String>,
    pub(super) scope: Option<String>,
}

impl std::fmt::Debug for CredentialsBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CredentialsBody")
            .field("headers", &NamesOnly(&self.headers))
            .field("env", &NamesOnly(&self.env))
            .finish()
    }
}

impl std::fmt::Debug for OAuthClientBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClientBody")
            .field("client_id", &self.client_id)
            .field("client_secret", &redacted(&self.client_secret))
            .field("scope", &self.scope)
            .finish()
    }
}

pub(super) fn validate_name(name: &str) -> Result<String, ApiError> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME_CHARS {
        return Err(ApiError::invalid("name", "must be 1 to 100 characters"));
    }
    Ok(name.to_owned())
}

pub(super) fn parse_transport(raw: &str) -> Result<McpTransport, ApiError> {
    match raw {
        "streamable_http" => Ok(McpTransport::StreamableHttp),
        "sse" => Ok(McpTransport::Sse),
        "stdio" => Ok(McpTransport::Stdio),
        _ => Err(ApiError::invalid(
            "transport",
            "must be `streamable_http`, `sse` or `stdio`",
        )),
    }
}

/// The `oauth` mode.
pub(super) fn parse_oauth(raw: &str) -> Result<OAuthMode, ApiError> {
    match raw {
        "none" => Ok(OAuthMode::None),
        "org" => Ok(OAuthMode::Org),
        "per_user" => Ok(OAuthMode::PerUser),
        _ => Err(ApiError::invalid(
            "oauth",
            "must be `none`, `org` or `per_user`",
        )),
    }
}

pub(super) fn validate_timeout(timeout_ms: i64) -> Result<u32, ApiError> {
    if !TIMEOUT_RANGE_MS.contains(&timeout_ms) {
        return Err(ApiError::invalid(
            "timeoutMs",
            "must be between 1000 and 120000",
        ));
    }
    Ok(u32::try_from(timeout_ms).unwrap_or(DEFAULT_TIMEOUT_MS))
}

pub(super) fn validate_url(state: &AppState, url: &str) -> Result<String, ApiError> {
    let url = url.trim();
    state
        .outbound
        .policy()
        .check_url(url)
        .map_err(|why| ApiError::invalid("url", why))?;
    Ok(url.to_owned())
}

/// The credentials, their header names and values usable on a request and
/// their variable names usable in an environment. Values are never quoted
/// in an error.
pub(super) fn credentials(body: CredentialsBody) -> Result<McpCredentials, ApiError> {
    for (name, value) in &body.headers {
        if reqwest::header::HeaderName::try_from(name.as_str()).is_err() {
            return Err(ApiError::invalid(
                "credentials.headers",
                "a header name is not a valid HTTP header name",
            ));
        }
        if RESERVED_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
            return Err(ApiError::invalid(
                "credentials.headers",
                format!("`{name}` is set by the transport"),
            ));
        }
        if reqwest::header::HeaderValue::try_from(value.as_str()).is_err() {
            return Err(ApiError::invalid(
                "credentials.headers",
                format!("the value of `{name}` is not a valid header value"),
            ));
        }
    }
    for (name, value) in &body.env {
        if !valid_env_name(name) {
            return Err(ApiError::invalid(
                "credentials.env",
                "a variable name must be letters, digits and _, not starting with a digit",
            ));
        }
        if RESERVED_ENV.contains(&name.as_str()) {
            return Err(ApiError::invalid(
                "credentials.env",
                format!("`{name}` is set by Confer"),
            ));
        }
        if value.contains('\0') {
            return Err(ApiError::invalid(
                "credentials.env",
                format!("the value of `{name}` contains a NUL character"),
            ));
        }
    }
    Ok(McpCredentials {
        headers: body.headers,
        env: body.env,
    })
}

/// An allow-list of tool names: each non-empty.
pub(super) fn validate_tool_list(field: &str, list: &[String]) -> Result<(), ApiError> {
    if list.iter().any(|name| name.trim().is_empty()) {
        return Err(ApiError::invalid(field, "a tool name is empty"));
    }
    Ok(())
}

pub(super) fn validate_oauth_client(client: &OAuthClientBody) -> Result<(), ApiError> {
    if client.client_id.trim().is_empty() {
        return Err(ApiError::invalid(
            "oauthClient.clientId",
            "must not be empty",
        ));
    }
    Ok(())
}

/// Whatever decides what a stdio server runs (its command, args and
/// env) is a platform admin's to set: an org admin could otherwise run
/// code of their choosing as Confer's user.
pub(super) fn platform_admin_for_stdio(caller: &Caller) -> Result<(), ApiError> {
    if caller.api_key().is_some_and(|key| key.platform_admin) {
        return Ok(());
    }
    Err(ApiError::Forbidden(
        "stdio MCP servers' command, args and env are set by platform admins only".into(),
    ))
}

/// A stdio command line: only one the operator allow-listed.
pub(super) fn check_command_line(
    state: &AppState,
    command: &str,
    args: &[String],
) -> Result<(), ApiError> {
    if !state.mcps.stdio().allow.allows(command, args) {
        return Err(ApiError::invalid(
            "command",
            "this command line (command and args) is not on the operator's \
             CONFER_MCP_STDIO_ALLOW list",
        ));
    }
    Ok(())
}

/// A stdio server's `env`: only names the operator allow-listed.
pub(super) fn check_stdio_env(
    state: &AppState,
    credentials: Option<&McpCredentials>,
) -> Result<(), ApiError> {
    let Some(credentials) = credentials else {
        return Ok(());
    };
    if let Some(name) = state.mcps.stdio().refused_env(&credentials.env) {
        return Err(ApiError::invalid(
            "credentials.env",
            format!("`{name}` is not on the operator's CONFER_MCP_STDIO_ENV_ALLOW list"),
        ));
    }
    Ok(())
}

pub(super) fn oauth_client(
    body: Option<&OAuthClientBody>,
) -> Result<Option<OAuthClient>, ApiError> {
    body.map(|client| {
        validate_oauth_client(client)?;
        Ok(OAuthClient {
            client_id: client.client_id.trim().to_owned(),
            // Sealed by the store from `McpSecrets`.
            client_secret: None,
            scope: client.scope.clone(),
        })
    })
    .transpose()
}
