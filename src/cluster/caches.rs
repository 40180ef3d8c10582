//! A node's cached org records kept in step with the cluster (`scale.md`
//! §5): every write to a cached kind bumps its org's `cache_versions` row;
//! each second every node reads the rows changed lately and drops what it
//! cached of those orgs (org tools, publications by slug, vectors), ending on this
//! node the sessions of a publication paused, revoked or deleted elsewhere.

use std::collections::HashMap;
use std::sync::Arc;

use confer_actors::Runtime;

use super::node::ROUND;
use crate::store::Store;
use crate::store::pg::PgStore;

/// What a node drops when an org's cached records changed on any node
/// (`org`, the `cache_versions` kind).
pub type CacheDrop = Box<dyn Fn(confer_actors::OrgId, &str) + Send + Sync>;

/// The caches a node keeps of org records that any node may change.
pub struct Cached {
    /// The org tools offered to turns.
    pub tools: Arc<crate::tools::webhook::OfferedCache>,
    /// Publications by slug, and their sessions.
    pub public: Arc<crate::publishing::chats::PublicChats>,
    /// Each org's MCP servers and attachments (its sessions reopen when
    /// the server they were opened for changed).
    pub mcps: Arc<crate::tools::mcp::hub::McpHub>,
    /// Each org's database integrations and attachments.
    pub integrations: Arc<crate::tools::integrations::IntegrationHub>,
    /// Each org's vectors, as searches scan them.
    pub vectors: Arc<crate::knowledge::vector_cache::VectorCache>,
}

impl Cached {
    /// The caches, shared with the node's services.
    pub fn of(
        tools: &Arc<crate::tools::webhook::OfferedCache>,
        public: &Arc<crate::publishing::chats::PublicChats>,
        mcps: &Arc<crate::tools::mcp::hub::McpHub>,
        integrations: &Arc<crate::tools::integrations::IntegrationHub>,
        vectors: &Arc<crate::knowledge::vector_cache::VectorCache>,
    ) -> Self {
        Self {
            tools: Arc::clone(tools),
            public: Arc::clone(public),
            mcps: Arc::clone(mcps),
            integrations: Arc::clone(integrations),
            vectors: Arc::clone(vectors),
        }
    }
}

/// What this node drops when another changed an org's cached records:
/// its org tools, MCP servers and integrations, its vectors, its publications by slug. A dropped
/// publication that is now paused, revoked (a new generation) or deleted
/// has its sessions ended here too: its streams and turns on this node,
/// which the node that took the change could not reach.
pub(super) fn dropping(cached: Cached, runtime: Runtime, store: Store) -> CacheDrop {
    let Cached {
        tools,
        public,
        mcps,
        integrations,
        vectors,
    } = cached;
    Box::new(move |org, kind| match kind {
        crate::store::pg::TOOLS_CACHE => tools.forget(org),
        crate::store::pg::MCPS_CACHE => mcps.forget(org),
        crate::store::pg::INTEGRATIONS_CACHE => integrations.forget(org),
        crate::store::pg::VECTORS_CACHE => vectors.changed(org),
        crate::store::pg::PUBLICATIONS_CACHE => {
            let dropped = public.slugs.forget_org(org);
            if dropped.is_empty() {
                return;
            }
            let (public, runtime, store) = (Arc::clone(&public), runtime.clone(), store.clone());
            tokio::spawn(async move {
                for kept in dropped {
                    let now = store
                        .publications()
                        .publication_by_slug(kept.slug.clone(), false)
                        .await;
                    match now {
                        Ok(Some(now))
                            if now.id == kept.id
                                && now.generation == kept.generation
                                && now.is_active() => {}
                        Ok(_) => public.end_sessions(&runtime, kept.id).await,
                        Err(error) => {
                            tracing::warn!(%error, "reading a changed publication failed");
                        }
                    }
                }
            });
        }
        _ => {}
    })
}

/// Each round, drops the cached entries of the orgs whose records changed
/// (`scale.md` §5): a version not seen before is a change. Only the rows
/// of the last 30 s are kept in mind, so the map is bounded by what
/// changes in that window.
pub(super) async fn cache_loop(pg: PgStore, drop: CacheDrop) {
    let mut seen: HashMap<(confer_actors::OrgId, String), i64> = HashMap::new();
    let mut ticks = tokio::time::interval(ROUND);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let changes = match pg.recent_cache_changes().await {
            Ok(changes) => changes,
            Err(error) => {
                tracing::warn!(%error, "reading the cache versions failed");
                continue;
            }
        };
        let mut now = HashMap::with_capacity(changes.len());
        for (org, kind, version) in changes {
            if seen.get(&(org, kind.clone())) != Some(&version) {
                drop(org, &kind);
            }
            now.insert((org, kind), version);
        }
        seen = now;
    }
}
