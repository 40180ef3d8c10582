//! [`McpHub`]: Confer's side of its MCP servers. It keeps each org's
//! servers and attachments in memory for turns, a bounded pool of open
//! sessions (one per server, and per end user for `oauth: per_user`), and
//! the background work of `tools.md` §6: a server's tool list is read on
//! creation, on `notifications/tools/list_changed` and by a turn starting
//! more than [`TOOLS_TTL`] after the last listing; a failed contact marks
//! the server down and retries it, 5 s doubling to 5 min, until it answers
//! or is deleted. Nothing here makes a turn wait for a server it has not
//! reached yet.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use chrono::Utc;
use confer_actors::tools::{CallRequest, TIMEOUT_PREFIX, ToolOutput, ToolScope};
use confer_actors::trace::{SpanKind, Stamp};
use confer_actors::{AgentId, AuthChallenge, McpServerId, OrgId, ThreadEvent, ToolCall};
use rmcp::model::CallToolRequestParams;
use rmcp::service::ServiceError;
use secrecy::SecretString;
use serde_json::Value;

use super::oauth::ManagedOAuth;
use super::session::{
    ContactError, Listener, Session, describe, fingerprint, needs_auth, open_session,
};
use super::stdio::StdioConfig;
use crate::outbound::Outbound;
use crate::store::Store;
use crate::store::mcps::{CachedTool, McpServer, McpStatus, OAuthMode, OrgMcps};
use crate::store::oauth::TokenOwner;
use crate::tools::org_cache::OrgCache;

/// A turn starting this long after a server's last listing asks for a new
/// one (in the background).
pub const TOOLS_TTL: chrono::TimeDelta = chrono::TimeDelta::minutes(5);
/// The first retry of a server that is down, doubled up to [`RETRY_MAX`].
pub const RETRY_FIRST: Duration = Duration::from_secs(5);
/// The longest wait between two retries.
pub const RETRY_MAX: Duration = Duration::from_secs(300);
/// Open sessions at most; past it the least recently used one is closed.
pub const MAX_SESSIONS: usize = 1024;
/// The error result of a call whose server could not be reached.
pub const UNAVAILABLE: &str = "mcp server unavailable";
/// The error result of a call that needs a token no one can give now.
pub const AUTHORIZATION_REQUIRED: &str = "authorization required";

/// Which session a call uses: the server's, or a user's of it.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
struct SessionKey {
    server: McpServerId,
    /// The end user, for servers whose tokens are per user.
    user: Option<String>,
}

/// Where a session is opened once, whoever asks first.
type Slot = tokio::sync::Mutex<Option<Arc<Session>>>;

#[derive(Default)]
struct Sessions {
    slots: HashMap<SessionKey, (u64, Arc<Slot>)>,
    /// Bumped at each use; the smallest mark is the least recently used.
    clock: u64,
}

/// What the hub is configured with.
pub struct McpConfig {
    /// How stdio servers' children are started.
    pub stdio: StdioConfig,
    /// Where users' browsers reach Confer (the OAuth redirect's base).
    pub public_url: String,
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
            oauth: ManagedOAuth::new(store.clone(), outbound.clone(), &config.public_url),
            store,
            outbound,
            config,
            orgs: OrgCache::default(),
            sessions: Mutex::default(),
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
        match self.store.run(move |s| s.org_mcps(org)).await {
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
    /// the org's view read again; a changed server is listed again.
    pub fn server_changed(&self, org: OrgId, server: McpServerId, deleted: bool) {
        self.close_sessions(server);
        self.forget(org);
        if deleted {
            self.config.stdio.remove_home(&server.to_string());
        } else {
            self.refresh(org, server);
        }
    }

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
            let server = match self.store.run(move |s| s.mcp(org, id)).await {
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
        if let Err(error) = self
            .store
            .write(move |s| s.record_mcp_contact(org, id, outcome))
            .await
        {
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
                        .run(move |s| s.latest_oauth_owner(org, id))
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

    /// The session of `owner` (`None`: no token) with its current token.
    async fn authorized_session(
        &self,
        server: &McpServer,
        owner: Option<&TokenOwner>,
    ) -> Result<Arc<Session>, ContactError> {
        let bearer = match owner {
            None => None,
            Some(owner) => Some(
                self.oauth
                    .token(server, owner)
                    .await
                    .map_err(|e| ContactError::from(e.0))?
                    .ok_or_else(ContactError::authorization_required)?,
            ),
        };
        let user = owner.map(|o| match o {
            TokenOwner::User(user) => format!("user:{user}"),
            TokenOwner::Org => "org".to_owned(),
        });
        self.session(server, user, bearer.as_ref()).await
    }

    /// Calls `tool` of `server` for the turn of `scope`; every failure is
    /// an error result, and a failed transport marks the server down. A
    /// server whose token is missing or refused asks the user to connect
    /// (`auth_challenge`, at most once per server per turn). Dropping the
    /// future (a stopped turn) cancels the call (`notifications/cancelled`).
    pub async fn call(
        &self,
        server: &McpServer,
        tool: &str,
        scope: &ToolScope,
        call: &ToolCall,
    ) -> ToolOutput {
        let Value::Object(arguments) = call.arguments.clone() else {
            return ToolOutput::error("arguments are not a JSON object");
        };
        let owner = match server.oauth {
            OAuthMode::None => None,
            OAuthMode::Org => Some(TokenOwner::Org),
            // A key that may not act for users sends as itself: no
            // person's token may serve it.
            OAuthMode::PerUser if !scope.end_user => {
                return ToolOutput::error(AUTHORIZATION_REQUIRED);
            }
            OAuthMode::PerUser => Some(TokenOwner::User(scope.user_id.clone())),
        };
        // Each request the call makes is a child of its tool span.
        let note = |name: &str, started: Stamp, error: Option<String>, rpc: Option<String>| {
            scope.notes.request(
                &call.id,
                CallRequest {
                    kind: SpanKind::Mcp,
                    name: name.to_owned(),
                    started,
                    ended: std::time::Instant::now(),
                    status_code: None,
                    rpc_error: rpc,
                    error,
                },
            );
        };
        let opening = Stamp::now();
        let session = match self.authorized_session(server, owner.as_ref()).await {
            Ok(session) => session,
            Err(error) if error.auth_required => {
                note("initialize", opening, Some(error.reason), None);
                return self.ask_to_connect(server, owner, scope, call).await;
            }
            Err(error) => {
                note("initialize", opening, Some(error.reason.clone()), None);
                self.failed(server, error.reason);
                return ToolOutput::error(UNAVAILABLE);
            }
        };
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        let started = Stamp::now();
        let called =
            tokio::time::timeout(timeout_of(server), session.service.peer().call_tool(params))
                .await;
        match called {
            // The call's future was dropped: the SDK sent the cancellation.
            Err(_) => {
                let timed_out = format!("{TIMEOUT_PREFIX} {} ms", server.timeout_ms);
                note("tools/call", started, Some(timed_out.clone()), None);
                ToolOutput::error(timed_out)
            }
            Ok(Ok(result)) => {
                let failed = (result.is_error == Some(true)).then(|| "isError".to_owned());
                note("tools/call", started, failed, None);
                match serde_json::to_value(&result) {
                    Ok(wire) => super::results::output(&wire),
                    Err(_) => ToolOutput::error("invalid answer from the MCP server"),
                }
            }
            Ok(Err(ServiceError::McpError(error))) => {
                let message: String = error.message.chars().take(1024).collect();
                let code = error.code.0.to_string();
                note("tools/call", started, Some(message.clone()), Some(code));
                ToolOutput::error(format!("mcp error {}: {message}", error.code.0))
            }
            Ok(Err(error)) if needs_auth(&error) && owner.is_some() => {
                note("tools/call", started, Some(describe(&error)), None);
                // The token was refused: it is of no more use.
                self.close_sessions(server.id);
                if let Some(owner) = &owner {
                    let (org, id, who) = (server.org_id, server.id, owner.clone());
                    let _ = self
                        .store
                        .write(move |s| s.delete_oauth_token(org, id, &who))
                        .await;
                }
                self.ask_to_connect(server, owner, scope, call).await
            }
            Ok(Err(error)) => {
                note("tools/call", started, Some(describe(&error)), None);
                self.failed(server, describe(&error));
                ToolOutput::error(UNAVAILABLE)
            }
        }
    }

    /// The answer of a call that needs a token: a user is asked to connect
    /// (once per server per turn); the org's flow is an admin's to run.
    async fn ask_to_connect(
        &self,
        server: &McpServer,
        owner: Option<TokenOwner>,
        scope: &ToolScope,
        call: &ToolCall,
    ) -> ToolOutput {
        let Some(owner @ TokenOwner::User(_)) = owner else {
            return ToolOutput::error(AUTHORIZATION_REQUIRED);
        };
        let pending = ToolOutput::error(format!(
            "authorization pending: the user was asked to connect {}",
            server.name
        ));
        if !scope.notes.first_challenge(&server.slug) {
            return pending;
        }
        match self.oauth.start(server, owner).await {
            Ok(redirect_url) => {
                scope.notes.announce(
                    &call.id,
                    ThreadEvent::AuthChallenge {
                        tool_name: call.name.clone(),
                        challenge: Box::new(AuthChallenge {
                            provider: server.slug.clone(),
                            redirect_url,
                            description: Some(format!("Connect {} to continue", server.name)),
                        }),
                    },
                );
                pending
            }
            Err(error) => {
                tracing::warn!(server = %server.id, %error, "an OAuth flow could not start");
                ToolOutput::error(AUTHORIZATION_REQUIRED)
            }
        }
    }

    /// After a user connected or disconnected: their sessions reopen with
    /// the new token, and the server's tools are listed again.
    pub fn token_changed(&self, org: OrgId, server: McpServerId) {
        self.close_sessions(server);
        self.forget(org);
        self.refresh(org, server);
    }

    /// A contact failed outside a listing: the server is down until a
    /// listing answers.
    fn failed(&self, server: &McpServer, reason: String) {
        tracing::warn!(server = %server.id, %reason, "an MCP server is down");
        self.close_sessions(server.id);
        let (org, id) = (server.org_id, server.id);
        let store = self.store.clone();
        let hub = self.me.clone();
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            let _ = store
                .run(move |s| s.record_mcp_contact(org, id, Err(reason)))
                .await;
            if let Some(hub) = hub.upgrade() {
                hub.forget(org);
                hub.refresh(org, id);
            }
        });
    }

    /// The session of (server, `user`), opened now if there is none or it
    /// was opened with another token (at most one opening per key at a
    /// time; the others wait for it).
    async fn session(
        &self,
        server: &McpServer,
        user: Option<String>,
        bearer: Option<&SecretString>,
    ) -> Result<Arc<Session>, ContactError> {
        let slot = self.slot(SessionKey {
            server: server.id,
            user,
        });
        let mut open = slot.lock().await;
        let wanted = bearer.map(fingerprint);
        if let Some(session) = open.as_ref()
            && !session.service.is_closed()
            && session.bearer == wanted
        {
            return Ok(Arc::clone(session));
        }
        let listener = Listener {
            hub: self.me.clone(),
            org: server.org_id,
            server: server.id,
        };
        let opening = open_session(
            &self.store,
            &self.outbound,
            &self.config.stdio,
            listener,
            server,
            bearer,
        );
        let session = tokio::time::timeout(timeout_of(server), opening)
            .await
            .map_err(|_| {
                ContactError::from(format!("{TIMEOUT_PREFIX} {} ms", server.timeout_ms))
            })??;
        let session = Arc::new(session);
        *open = Some(Arc::clone(&session));
        Ok(session)
    }

    /// The slot of `key`, made if new; past [`MAX_SESSIONS`] the least
    /// recently used slot is dropped (its session closes when its last
    /// call ends).
    fn slot(&self, key: SessionKey) -> Arc<Slot> {
        let mut sessions = locked(&self.sessions);
        sessions.clock += 1;
        let now = sessions.clock;
        if let Some((used, slot)) = sessions.slots.get_mut(&key) {
            *used = now;
            return Arc::clone(slot);
        }
        if sessions.slots.len() >= MAX_SESSIONS {
            let oldest = sessions
                .slots
                .iter()
                .min_by_key(|(_, (used, _))| *used)
                .map(|(key, _)| key.clone());
            if let Some(oldest) = oldest {
                sessions.slots.remove(&oldest);
            }
        }
        let slot = Arc::new(Slot::default());
        sessions.slots.insert(key, (now, Arc::clone(&slot)));
        slot
    }

    fn close_sessions(&self, server: McpServerId) {
        locked(&self.sessions)
            .slots
            .retain(|key, _| key.server != server);
    }

    /// Closes every session (at shutdown): stdio children are killed with
    /// their process groups once no call holds their session.
    pub fn close_all(&self) {
        locked(&self.sessions).slots.clear();
    }

    /// Open sessions now (slots, whether or not their session opened).
    pub fn session_count(&self) -> usize {
        locked(&self.sessions).slots.len()
    }
}

fn timeout_of(server: &McpServer) -> Duration {
    Duration::from_millis(u64::from(server.timeout_ms))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hub() -> (tempfile::TempDir, Arc<McpHub>) {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::Store::open(dir.path()).unwrap();
        let policy = crate::outbound::OutboundPolicy::new("", None).unwrap();
        let outbound = Outbound::new(policy, None).unwrap();
        let config = McpConfig {
            public_url: "http://127.0.0.1:8080".into(),
            stdio: StdioConfig::new(
                super::super::stdio::StdioAllowList::default(),
                "",
                dir.path().join("mcp"),
                &dir.path().join("data"),
                65534,
            )
            .unwrap(),
        };
        (dir, McpHub::new(store, outbound, config))
    }

    #[test]
    fn the_session_pool_keeps_at_most_its_bound() {
        let (_dir, hub) = hub();
        let first = SessionKey {
            server: McpServerId::new(),
            user: None,
        };
        let kept = hub.slot(first.clone());
        for _ in 1..MAX_SESSIONS {
            hub.slot(SessionKey {
                server: McpServerId::new(),
                user: None,
            });
        }
        assert_eq!(hub.session_count(), MAX_SESSIONS);
        // The first is used again, so another is the least recent.
        assert!(Arc::ptr_eq(&kept, &hub.slot(first.clone())));
        hub.slot(SessionKey {
            server: McpServerId::new(),
            user: None,
        });
        assert_eq!(hub.session_count(), MAX_SESSIONS);
        assert!(Arc::ptr_eq(&kept, &hub.slot(first)), "the recent one stays");
    }
}
