//! How an MCP server is shown: never its secrets (`has_credentials`
//! instead), its last listing's names and descriptions only.

use serde::Serialize;

use crate::api::timestamp;
use crate::store::mcps::McpServer;

/// A tool of a server's last listing, as shown.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ListedTool {
    name: String,
    description: Option<String>,
}

/// An MCP server as admins and members see it (never its secrets).
#[derive(Serialize, utoipa::ToSchema)]
pub struct McpView {
    id: String,
    org_id: String,
    name: String,
    slug: String,
    transport: &'static str,
    url: Option<String>,
    command: Option<String>,
    args: Vec<String>,
    has_credentials: bool,
    allowed_tools: Option<Vec<String>>,
    oauth: &'static str,
    oauth_client_id: Option<String>,
    timeout_ms: u32,
    status: &'static str,
    last_error: Option<String>,
    tools_cache: Vec<ListedTool>,
    tools_refreshed_at: Option<String>,
    created_at: String,
    updated_at: String,
}

pub(crate) fn listed(server: &McpServer) -> Vec<ListedTool> {
    server
        .tools_cache
        .iter()
        .map(|t| ListedTool {
            name: t.name.clone(),
            description: t.description.clone(),
        })
        .collect()
}

pub(super) fn view(server: McpServer) -> McpView {
    McpView {
        tools_cache: listed(&server),
        id: server.id.to_string(),
        org_id: server.org_id.to_string(),
        name: server.name,
        slug: server.slug,
        transport: server.transport.as_str(),
        url: server.url,
        command: server.command,
        args: server.args,
        has_credentials: server.credentials.is_some(),
        allowed_tools: server.allowed_tools,
        oauth: server.oauth.as_str(),
        oauth_client_id: server.oauth_client.map(|c| c.client_id),
        timeout_ms: server.timeout_ms,
        status: server.status.as_str(),
        last_error: server.last_error,
        tools_refreshed_at: server.tools_refreshed_at.map(timestamp),
        created_at: timestamp(server.created_at),
        updated_at: timestamp(server.updated_at),
    }
}

/// The `GET /api/mcps` answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct McpList {
    pub(super) mcps: Vec<McpView>,
}

/// The `POST /api/mcps/{id}/test` answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Tested {
    pub(super) ok: bool,
    pub(super) tools: Vec<ListedTool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) error: Option<String>,
}
