//! The MCP records as stored: a server (its transport, OAuth mode,
//! status and last listing) and what turns read of an org's servers.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, McpServerId, OrgId};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::store::attached::{self, Attachment};

/// How Confer reaches an MCP server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum McpTransport {
    /// MCP's streamable HTTP transport (one endpoint, POST and GET).
    StreamableHttp,
    /// The older HTTP+SSE transport (an event stream and a POST endpoint).
    Sse,
    /// A child process speaking over its standard input and output.
    Stdio,
}

impl McpTransport {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::StreamableHttp => "streamable_http",
            Self::Sse => "sse",
            Self::Stdio => "stdio",
        }
    }
}

/// Whose authorization a server's calls carry (`tools.md` §8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OAuthMode {
    None,
    Org,
    PerUser,
}

impl OAuthMode {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Org => "org",
            Self::PerUser => "per_user",
        }
    }
}

/// Whether a server answered its last contact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum McpStatus {
    /// Never listed yet.
    Pending,
    Active,
    /// The last contact failed; its tools are left out of turns.
    Down,
}

impl McpStatus {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Active => "active",
            Self::Down => "down",
        }
    }
}

/// One tool of a server's last listing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CachedTool {
    /// The server's own name of the tool.
    pub name: String,
    pub description: Option<String>,
    /// The tool's `inputSchema` (a JSON Schema object).
    pub input_schema: Value,
}

/// The OAuth client a server's flows use, when not registered dynamically.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OAuthClient {
    pub client_id: String,
    /// Sealed in the store.
    pub client_secret: Option<String>,
    pub scope: Option<String>,
}

/// What a server is given to authenticate: headers on every HTTP request,
/// environment variables of a stdio child. Write-only; sealed as one JSON
/// document.
#[derive(Clone, Default, Serialize, Deserialize)]
pub struct McpCredentials {
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// An MCP server as stored.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct McpServer {
    pub id: McpServerId,
    pub org_id: OrgId,
    pub name: String,
    /// Fixed at creation (`tools.md` §6); the prefix of its tools' names.
    pub slug: String,
    pub transport: McpTransport,
    pub url: Option<String>,
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    /// [`McpCredentials`] as JSON, sealed; opened by
    /// [`super::credentials_of`] only.
    pub credentials: Option<String>,
    /// The tools of the server offered at all (`None`: every one).
    pub allowed_tools: Option<Vec<String>>,
    pub oauth: OAuthMode,
    pub oauth_client: Option<OAuthClient>,
    pub timeout_ms: u32,
    pub status: McpStatus,
    pub last_error: Option<String>,
    #[serde(default)]
    pub tools_cache: Vec<CachedTool>,
    pub tools_refreshed_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Bumped whenever what decides where its tokens go changes (`url`,
    /// `oauth`, `oauthClient`): the registration and tokens of an older
    /// epoch are deleted with the change, and an OAuth write made for an
    /// older epoch is refused (a late write cannot resurrect them).
    #[serde(default)]
    pub oauth_epoch: u32,
}

impl McpServer {
    /// Whether `after` sends its tokens elsewhere, or gets them otherwise,
    /// than `self`: its OAuth state must be forgotten.
    pub fn oauth_moved(&self, after: &Self) -> bool {
        self.url != after.url
            || self.oauth != after.oauth
            || self.oauth_client != after.oauth_client
    }

    /// Whether the server's own list lets `tool` be offered.
    pub fn allows(&self, tool: &str) -> bool {
        allowed_by(self.allowed_tools.as_deref(), tool)
    }
}

/// Whether an allow-list (`None`: all) lets `tool` through.
pub fn allowed_by(list: Option<&[String]>, tool: &str) -> bool {
    list.is_none_or(|names| names.iter().any(|n| n == tool))
}

/// An MCP server attached to an agent; `allowed` are the server's tools
/// the agent is offered (`None`: every one the server allows).
pub type McpAttachment = Attachment<McpServerId>;

/// An org's MCP servers and who uses them: what a turn reads to offer
/// tools (kept in memory by the MCP tools, see `tools::mcp`).
#[derive(Clone, Debug, Default)]
pub struct OrgMcps {
    pub servers: Vec<McpServer>,
    /// Each agent's attachments, oldest first.
    pub attachments: Vec<(AgentId, McpAttachment)>,
}

impl OrgMcps {
    /// The servers attached to `agent`, in attachment order.
    pub fn of_agent(
        &self,
        agent: AgentId,
    ) -> impl Iterator<Item = (&McpServer, &McpAttachment)> + '_ {
        attached::attached_to(&self.servers, &self.attachments, agent, |s| &s.id)
    }
}

impl std::fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClient")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &crate::secrets::redacted(&self.client_secret),
            )
            .field("scope", &self.scope)
            .finish()
    }
}

impl std::fmt::Debug for McpCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpCredentials")
            .field("headers", &crate::secrets::NamesOnly(&self.headers))
            .field("env", &crate::secrets::NamesOnly(&self.env))
            .finish()
    }
}
