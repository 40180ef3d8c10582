//! MCP servers' tools (`tools.md` §6): the turn's [`ToolExecutor`] for the
//! tools of the servers attached to its agent, offered as `{slug}__{tool}`
//! (fitted, see [`results::model_name`]) when the server's and the
//! attachment's `allowed_tools` both allow it. The servers are reached by
//! the [`McpHub`] over streamable HTTP (the official SDK, `rmcp`, on the
//! outbound policy's client), the older HTTP+SSE transport (`sse`) or a
//! child's standard streams (`stdio`, allow-listed command lines only).

pub mod hub;
pub mod oauth;
pub mod registry;
pub mod results;
pub mod session;
mod sse;
pub mod stdio;

use std::sync::Arc;

use confer_actors::tools::{
    NOT_AVAILABLE, OfferedFuture, ServerTools, ToolExecutor, ToolFuture, ToolScope,
};
use confer_actors::{AgentId, ToolCall, ToolDefinition};
use serde_json::json;

pub use self::hub::{McpConfig, McpHub};
use crate::store::mcps::{McpServer, McpStatus, OrgMcps, allowed_by};

/// One MCP tool an agent is offered.
pub struct OfferedMcpTool<'a> {
    pub server: &'a McpServer,
    /// The server's own name of the tool.
    pub tool: &'a str,
    pub definition: ToolDefinition,
}

/// The tools of `agent`'s servers in `mcps`, attachment by attachment.
/// A server that is down offers none; one never listed has none yet.
pub fn agent_tools(mcps: &OrgMcps, agent: AgentId) -> Vec<OfferedMcpTool<'_>> {
    let mut offered = Vec::new();
    for (_, attachment) in mcps.attachments.iter().filter(|(a, _)| *a == agent) {
        let Some(server) = mcps.servers.iter().find(|s| s.id == attachment.target) else {
            continue;
        };
        if server.status == McpStatus::Down {
            continue;
        }
        for tool in &server.tools_cache {
            if !server.allows(&tool.name) || !allowed_by(attachment.allowed.as_deref(), &tool.name)
            {
                continue;
            }
            let mut parameters = tool.input_schema.clone();
            if parameters.get("type").is_none() {
                parameters["type"] = json!("object");
            }
            offered.push(OfferedMcpTool {
                server,
                tool: &tool.name,
                definition: ToolDefinition {
                    name: results::model_name(&server.slug, &tool.name),
                    description: tool.description.clone(),
                    parameters,
                },
            });
        }
    }
    offered
}

/// Offers and calls the MCP tools of a turn's agent.
pub struct McpTools {
    hub: Arc<McpHub>,
}

impl McpTools {
    /// The executor of `hub`'s servers.
    pub fn new(hub: Arc<McpHub>) -> Self {
        Self { hub }
    }
}

impl ToolExecutor for McpTools {
    fn offered(&self, scope: &ToolScope) -> OfferedFuture {
        let (hub, org, agent) = (Arc::clone(&self.hub), scope.org, scope.agent);
        Box::pin(async move {
            let Some(mcps) = hub.org(org).await else {
                return ServerTools::default();
            };
            // Never awaited by the turn: listings run in the background.
            hub.refresh_stale(&mcps, agent);
            ServerTools {
                mcp: agent_tools(&mcps, agent)
                    .into_iter()
                    .map(|t| t.definition)
                    .collect(),
                ..ServerTools::default()
            }
        })
    }

    fn execute(&self, scope: &ToolScope, call: &ToolCall) -> ToolFuture {
        let (hub, org, agent) = (Arc::clone(&self.hub), scope.org, scope.agent);
        let (scope, call) = (scope.clone(), call.clone());
        Box::pin(async move {
            let Some(mcps) = hub.org(org).await else {
                return confer_actors::tools::ToolOutput::error(NOT_AVAILABLE);
            };
            let found = agent_tools(&mcps, agent)
                .into_iter()
                .find(|t| t.definition.name == call.name)
                .map(|t| (t.server.clone(), t.tool.to_owned()));
            match found {
                Some((server, tool)) => hub.call(&server, &tool, &scope, &call).await,
                // Detached, deleted or down since it was offered.
                None => confer_actors::tools::ToolOutput::error(NOT_AVAILABLE),
            }
        })
    }
}
