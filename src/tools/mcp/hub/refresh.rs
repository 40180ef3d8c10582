//! The background listings of servers' tools: on creation, on a change,
//! on `notifications/tools/list_changed` and for a turn starting past
//! [`TOOLS_TTL`]; a server that fails is retried, [`RETRY_FIRST`] doubling
//! to [`RETRY_MAX`], until it answers or is deleted.

use std::time::Duration;

use chrono::Utc;
use confer_actors::tools::TIMEOUT_PREFIX;
use confer_actors::{AgentId, McpServerId, OrgId};
use serde_json::Value;

use super::{McpHub, locked, timeout_of};
use crate::store::mcps::{CachedTool, McpServer, McpStatus, OAuthMode, OrgMcps};
use crate::store::oauth::TokenOwner;
use crate::tools::mcp::session::ContactError;

/// A turn starting this long after a server's last listing asks for a new
/// one (in the background).
pub const TOOLS_TTL: chrono::TimeDelta = chrono::TimeDelta::minutes(5);
/// The first retry of a server that is down, doubled up to [`RETRY_MAX`].
pub const RETRY_FIRST: Duration = Duration::from_secs(5);
/// The longest wait between two retries.
pub const RETRY_MAX: Duration = Duration::from_secs(300);

impl McpHub {
    /// Starts listing the server's tools in the background unless a
    /// listing of it runs already; on failure it is retried until it
    /// answers or is deleted.
    pub fn refresh(&self, org: OrgId, server: McpServerId) {
        if !locked(&self.refreshing).insert(server) {
            return;
        }
        let Some(hub) = self.me.upgrade() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            locked(&self.refreshing).remove(&server);
            return;
        };
        runtime.spawn(async move {
            hub.refresh_until_up(org, server).await;
            locked(&hub.refreshing).remove(&server);
        });
    }

    /// The servers of `agent` whose tools are due a listing (never listed,
    /// down without retries running, or older than [`TOOLS_TTL`]), asked
    /// for in the background.
    pub fn refresh_stale(&self, mcps: &OrgMcps, agent: AgentId) {
        let stale_before = Utc::now() - TOOLS_TTL;
        for (_, attachment) in mcps.attachments.iter().filter(|(a, _)| *a == agent) {
            let Some(server) = mcps.servers.iter().find(|s| s.id == attachment.target) else {
                continue;
            };
            let due = server.status != McpStatus::Active
                || server.tools_refreshed_at.is_none_or(|at| at < stale_before);
            if due {
                self.refresh(server.org_id, server.id);
            }
        }
    }

    async fn refresh_until_up(&self, org: OrgId, id: McpServerId) {
        let mut wait = RETRY_FIRST;
        loop {
            let server = match self.store.mcps().mcp(org, id).await {
                Ok(Some(server)) => server,
                // Deleted (or the store failed: the next turn asks again).
                Ok(None) | Err(_) => return,
            };
            if self.list(&server).await.is_ok() {
                return;
            }
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(RETRY_MAX);
        }
    }

    /// Lists the server's tools now and records the outcome (tool list,
    /// status, last error) before answering.
    pub async fn list(&self, server: &McpServer) -> Result<Vec<CachedTool>, String> {
        let listed = self.list_once(server).await.map_err(|e| e.reason);
        if let Err(reason) = &listed {
            tracing::warn!(server = %server.id, %reason, "an MCP server is down");
            self.close_sessions(server.id);
        }
        let (org, id, outcome) = (server.org_id, server.id, listed.clone());
        if let Err(error) = self.store.mcps().record_mcp_contact(org, id, outcome).await {
            tracing::error!(%error, "recording an MCP server's listing failed");
        }
        self.forget(org);
        listed
    }

    async fn list_once(&self, server: &McpServer) -> Result<Vec<CachedTool>, ContactError> {
        let owner = match server.oauth {
            OAuthMode::None => None,
            OAuthMode::Org => Some(TokenOwner::Org),
            // Without a user's token first; if the server wants one, with
            // the token a user connected last (servers differing per user
            // share one list, tools.md's open question).
            OAuthMode::PerUser => match self.list_with(server, None).await {
                Err(error) if error.auth_required => {
                    let (org, id) = (server.org_id, server.id);
                    let latest = self
                        .store
                        .mcps()
                        .latest_oauth_owner(org, id)
                        .await
                        .map_err(|_| ContactError::from("the store".to_owned()))?;
                    Some(latest.ok_or(error)?)
                }
                other => return other,
            },
        };
        self.list_with(server, owner.as_ref()).await
    }

    async fn list_with(
        &self,
        server: &McpServer,
        owner: Option<&TokenOwner>,
    ) -> Result<Vec<CachedTool>, ContactError> {
        let session = self.authorized_session(server, owner).await?;
        let listed = tokio::time::timeout(timeout_of(server), session.service.list_all_tools())
            .await
            .map_err(|_| ContactError::from(format!("{TIMEOUT_PREFIX} {} ms", server.timeout_ms)))?
            .map_err(|e| ContactError::of(&e))?;
        Ok(listed
            .into_iter()
            .map(|tool| CachedTool {
                name: tool.name.into_owned(),
                description: tool.description.map(std::borrow::Cow::into_owned),
                input_schema: Value::Object((*tool.input_schema).clone()),
            })
            .collect())
    }
}
