//! [`McpHub`]: Confer's side of its MCP servers. It keeps each org's
//! servers and attachments in memory for turns, a bounded pool of open
//! sessions (`pool`: one per server, and per end user for `oauth:
//! per_user`), the background listings (`refresh`) and the calls of turns
//! (`call`).
//!
//! The background work of `tools.md` §6: a server's tool list is read on
//! creation, on `notifications/tools/list_changed` and by a turn starting
//! more than [`TOOLS_TTL`] after the last listing; a failed contact marks
//! the server down and retries it, 5 s doubling to 5 min, until it answers
//! or is deleted. A failure of one user's session (a refused token, a
//! broken transport) closes that session only and leaves the server's
//! status to its listings. Nothing here makes a turn wait for a server it
//! has not reached yet.

mod call;
mod pool;
mod refresh;

use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use confer_actors::{McpServerId, OrgId};

use self::pool::Sessions;
use super::oauth::ManagedOAuth;
use super::stdio::StdioConfig;
use crate::outbound::Outbound;
use crate::store::Store;
use crate::store::mcps::{McpServer, OrgMcps};
use crate::tools::org_cache::OrgCache;

pub use self::call::{AUTHORIZATION_REQUIRED, UNAVAILABLE};
pub use self::pool::MAX_SESSIONS;
pub use self::refresh::{RETRY_FIRST, RETRY_MAX, TOOLS_TTL};

/// What the hub is configured with.
pub struct McpConfig {
    /// How stdio servers' children are started.
    pub stdio: StdioConfig,
    /// Where users' browsers reach Confer (the OAuth redirect's base).
    pub public_url: String,
    /// The operator's OAuth clients for known servers (`mcp_managed_oauth`).
    pub managed_oauth: std::sync::Arc<crate::tools::mcp::registry::managed::ManagedClients>,
}

/// See the module's documentation.
pub struct McpHub {
    store: Store,
    outbound: Outbound,
    config: McpConfig,
    orgs: OrgCache<OrgMcps>,
    sessions: Mutex<Sessions>,
    /// Servers whose listing (or retries) runs now.
    refreshing: Mutex<HashSet<McpServerId>>,
    /// The OAuth flows and tokens of `oauth: org | per_user` servers.
    oauth: ManagedOAuth,
    me: Weak<McpHub>,
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding one of these leaves plain data behind.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl McpHub {
    /// A hub reading servers from `store`, reaching them through `outbound`.
    pub fn new(store: Store, outbound: Outbound, config: McpConfig) -> Arc<Self> {
        Arc::new_cyclic(|me| Self {
            oauth: ManagedOAuth::new(
                store.clone(),
                outbound.clone(),
                &config.public_url,
                std::sync::Arc::clone(&config.managed_oauth),
            ),
            store,
            outbound,
            config,
            orgs: OrgCache::default(),
            sessions: Mutex::new(Sessions::new()),
            refreshing: Mutex::default(),
            me: me.clone(),
        })
    }

    /// The managed OAuth flows.
    pub fn oauth(&self) -> &ManagedOAuth {
        &self.oauth
    }

    /// The operator's stdio settings (allow-lists, homes).
    pub fn stdio(&self) -> &StdioConfig {
        &self.config.stdio
    }

    /// The org's servers and attachments (from memory when kept); `None`
    /// when the store could not be read.
    pub async fn org(&self, org: OrgId) -> Option<Arc<OrgMcps>> {
        if let Some(kept) = self.orgs.get(org) {
            return Some(kept);
        }
        let generation = self.orgs.generation();
        match self.store.mcps().org_mcps(org).await {
            Ok(read) => {
                let read = Arc::new(read);
                self.orgs.put(org, Arc::clone(&read), generation);
                Some(read)
            }
            Err(error) => {
                tracing::error!(%error, "reading the org's MCP servers failed; none offered");
                None
            }
        }
    }

    /// After a write to the org's servers or attachments.
    pub fn forget(&self, org: OrgId) {
        self.orgs.forget(org);
    }

    /// After a server was changed or deleted: its sessions are closed and
    /// the org's view read again; a changed server is listed again, a
    /// deleted one's stdio home removed.
    pub fn server_changed(&self, org: OrgId, server: McpServerId, deleted: bool) {
        self.close_sessions(server);
        self.forget(org);
        if deleted {
            self.config.stdio.remove_home(&server.to_string());
        } else {
            self.refresh(org, server);
        }
    }

    /// After a user connected or disconnected: their sessions reopen with
    /// the new token, and the server's tools are listed again.
    pub fn token_changed(&self, org: OrgId, server: McpServerId) {
        self.close_sessions(server);
        self.forget(org);
        self.refresh(org, server);
    }
}

fn timeout_of(server: &McpServer) -> Duration {
    Duration::from_millis(u64::from(server.timeout_ms))
}
