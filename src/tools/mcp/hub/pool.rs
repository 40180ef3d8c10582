//! The hub's open sessions: one per (server, end user), opened once
//! whoever asks first, at most [`MAX_SESSIONS`] (the least recently used
//! is dropped past it; its session closes when its last call ends).

use std::num::NonZeroUsize;
use std::sync::Arc;

use confer_actors::McpServerId;
use lru::LruCache;
use secrecy::SecretString;

use super::{McpHub, locked, timeout_of};
use crate::store::mcps::McpServer;
use crate::store::oauth::TokenOwner;
use crate::tools::mcp::session::{ContactError, Listener, Session, fingerprint, open_session};
use confer_actors::tools::TIMEOUT_PREFIX;

/// Open sessions at most; past it the least recently used one is closed.
pub const MAX_SESSIONS: usize = 1024;

/// Which session a call uses: the server's, or a user's of it.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub(super) struct SessionKey {
    pub(super) server: McpServerId,
    /// Whose token it carries (`None`: no token).
    pub(super) owner: Option<String>,
}

impl SessionKey {
    pub(super) fn of(server: &McpServer, owner: Option<&TokenOwner>) -> Self {
        Self {
            server: server.id,
            owner: owner.map(|o| match o {
                TokenOwner::User(user) => format!("user:{user}"),
                TokenOwner::Org => "org".to_owned(),
            }),
        }
    }
}

/// Where a session is opened once, whoever asks first.
type Slot = tokio::sync::Mutex<Option<Arc<Session>>>;

pub(super) struct Sessions {
    slots: LruCache<SessionKey, Arc<Slot>>,
}

impl Sessions {
    pub(super) fn new() -> Self {
        Self {
            slots: LruCache::new(NonZeroUsize::new(MAX_SESSIONS).unwrap_or(NonZeroUsize::MIN)),
        }
    }
}

impl McpHub {
    /// The session of `owner` (`None`: no token) with its current token.
    pub(super) async fn authorized_session(
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
        self.session(server, SessionKey::of(server, owner), bearer.as_ref())
            .await
    }

    /// The session of `key`, opened now if there is none or it was opened
    /// with another token (at most one opening per key at a time; the
    /// others wait for it).
    async fn session(
        &self,
        server: &McpServer,
        key: SessionKey,
        bearer: Option<&SecretString>,
    ) -> Result<Arc<Session>, ContactError> {
        let slot = self.slot(key);
        let mut open = slot.lock().await;
        let wanted = bearer.map(fingerprint);
        if let Some(session) = open.as_ref()
            && !session.service.is_closed()
            && session.bearer == wanted
            && session.opened_for == server.updated_at
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

    /// The slot of `key`, made if new (the least recently used one
    /// dropped past [`MAX_SESSIONS`]).
    fn slot(&self, key: SessionKey) -> Arc<Slot> {
        Arc::clone(
            locked(&self.sessions)
                .slots
                .get_or_insert(key, || Arc::new(Slot::default())),
        )
    }

    /// Closes every session of `server`.
    pub(super) fn close_sessions(&self, server: McpServerId) {
        let mut sessions = locked(&self.sessions);
        let closing: Vec<SessionKey> = sessions
            .slots
            .iter()
            .filter(|(key, _)| key.server == server)
            .map(|(key, _)| key.clone())
            .collect();
        for key in closing {
            sessions.slots.pop(&key);
        }
    }

    /// Closes one session (a user's whose token or transport failed).
    pub(super) fn close_session(&self, key: &SessionKey) {
        locked(&self.sessions).slots.pop(key);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outbound::{Outbound, OutboundPolicy};
    use crate::tools::mcp::McpConfig;
    use crate::tools::mcp::stdio::{StdioAllowList, StdioConfig};

    fn hub() -> (tempfile::TempDir, Arc<McpHub>) {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::Store::open(dir.path()).unwrap();
        let policy = OutboundPolicy::new("", None).unwrap();
        let outbound = Outbound::new(policy, None).unwrap();
        let config = McpConfig {
            public_url: "http://127.0.0.1:8080".into(),
            managed_oauth: Default::default(),
            stdio: StdioConfig::new(
                StdioAllowList::default(),
                "",
                dir.path().join("mcp"),
                &dir.path().join("data"),
                65534,
            )
            .unwrap(),
        };
        (dir, McpHub::new(store, outbound, config))
    }

    fn key(server: McpServerId, owner: Option<&str>) -> SessionKey {
        SessionKey {
            server,
            owner: owner.map(str::to_owned),
        }
    }

    #[test]
    fn the_session_pool_keeps_at_most_its_bound() {
        let (_dir, hub) = hub();
        let first = key(McpServerId::new(), None);
        let kept = hub.slot(first.clone());
        for _ in 1..MAX_SESSIONS {
            hub.slot(key(McpServerId::new(), None));
        }
        assert_eq!(hub.session_count(), MAX_SESSIONS);
        // The first is used again, so another is the least recent.
        assert!(Arc::ptr_eq(&kept, &hub.slot(first.clone())));
        hub.slot(key(McpServerId::new(), None));
        assert_eq!(hub.session_count(), MAX_SESSIONS);
        assert!(Arc::ptr_eq(&kept, &hub.slot(first)), "the recent one stays");
    }

    #[test]
    fn one_users_session_closes_alone() {
        let (_dir, hub) = hub();
        let server = McpServerId::new();
        let (alice, bob) = (
            key(server, Some("user:alice")),
            key(server, Some("user:bob")),
        );
        let bobs = hub.slot(bob.clone());
        hub.slot(alice.clone());
        hub.slot(key(McpServerId::new(), None));
        hub.close_session(&alice);
        assert_eq!(hub.session_count(), 2);
        assert!(Arc::ptr_eq(&bobs, &hub.slot(bob)), "bob's session stays");
        hub.close_sessions(server);
        assert_eq!(hub.session_count(), 1);
    }
}
