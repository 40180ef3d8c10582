//! The memory service (`knowledge.md` §5): writes answered once durable
//! and searchable (the index commit, ≤ 5 s), recall by the index under the
//! owners' scopes with each hit checked in the store, the recall stamps,
//! and the background purge of forgotten memories. Who may write or read
//! which owner's memories is decided by the callers: the API
//! (`crate::api::memories`) and the tools (`crate::tools::memory`).

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use confer_actors::{AgentId, MemoryId, OrgId, StoreError};
use tokio::sync::Notify;

use super::index::MEMORY_HIT;
use super::memory::{Memory, MemoryConfig, Owner};
use super::search::{KnowledgeSearch, SearchError, query_terms};
use crate::settings::Settings;
use crate::store::Store;
use crate::store::knowledge::memories::MemoryWritten;
use crate::store::port::configs::{PlainConfig, agent_config};

/// How long a write waits for the index commit that makes it searchable.
const SEARCHABLE_WITHIN: Duration = Duration::from_secs(5);
/// Memories the purge removes at once.
const PURGE_BATCH: usize = 1_000;

/// `agent`'s memory configuration (`knowledge.md` §5 defaults when unset).
pub async fn config(store: &Store, org: OrgId, agent: AgentId) -> Result<MemoryConfig, StoreError> {
    let configs = store.configs();
    agent_config(configs, org, agent, PlainConfig::Memory).await
}

/// The memory service.
pub struct MemoryBook {
    store: Store,
    search: Arc<KnowledgeSearch>,
    max_per_org: u64,
    purge: Notify,
    /// Told of each memory collection queued (the collector waits on it).
    collections: Arc<Notify>,
}

/// A recalled memory and its BM25 score.
#[derive(Clone, Debug)]
pub struct Recalled {
    pub memory: Memory,
    pub score: f32,
}

impl MemoryBook {
    /// The service, its purge started on the current runtime.
    pub fn start(store: &Store, search: &Arc<KnowledgeSearch>, settings: &Settings) -> Arc<Self> {
        let book = Arc::new(Self {
            store: store.clone(),
            search: Arc::clone(search),
            max_per_org: settings.knowledge_max_memories_per_org,
            purge: Notify::new(),
            collections: Arc::new(Notify::new()),
        });
        // On PostgreSQL every node runs the purge: a step takes its rows
        // with SKIP LOCKED, so two never remove the same memory.
        tokio::spawn(Arc::clone(&book).purge_loop());
        book
    }

    /// What the memory collector waits on: a collection was queued.
    pub fn collections(&self) -> Arc<Notify> {
        Arc::clone(&self.collections)
    }

    /// Queues the collection of a turn's memories (durable when it
    /// answers) and wakes the collector.
    pub async fn queue_collection(
        &self,
        job: crate::store::knowledge::collect::CollectJob,
    ) -> Result<(), StoreError> {
        self.store.memories().queue_collection(job).await?;
        self.collections.notify_one();
        Ok(())
    }

    /// Writes `memory` (evicting past `max_per_owner`); answers once it is
    /// durable and, within 5 s, searchable.
    pub async fn write(
        &self,
        memory: Memory,
        max_per_owner: u32,
    ) -> Result<MemoryWritten, StoreError> {
        let written = self
            .store
            .memories()
            .put_memory(memory, max_per_owner as usize, self.max_per_org)
            .await?;
        if let MemoryWritten::Stored { seq, .. } = &written {
            let index = self.search.index();
            index.nudge();
            if !index.committed(*seq, SEARCHABLE_WITHIN).await {
                tracing::warn!(seq, "a memory was stored before the index committed it");
            }
        }
        Ok(written)
    }

    /// The best `limit` memories of `owners` of `agent` for `query`.
    pub async fn recall(
        &self,
        org: OrgId,
        agent: AgentId,
        owners: &[Owner],
        query: &str,
        limit: usize,
    ) -> Result<Vec<Recalled>, SearchError> {
        let terms = query_terms(query)?;
        let scopes: Vec<String> = owners.iter().map(|o| o.scope_term(agent)).collect();
        let hits = self.search.raw(scopes, terms, limit * 2 + 10).await?;
        let hits: Vec<(MemoryId, f32)> = hits
            .iter()
            .filter_map(|hit| {
                let id = hit.chunk_id.strip_prefix(MEMORY_HIT)?.parse().ok()?;
                Some((id, hit.score))
            })
            .collect();
        // Every hit checked in the store at once: deleted, forgotten and
        // other owners' memories are left out.
        let ids = hits.iter().map(|(id, _)| *id).collect();
        let found = self
            .store
            .memories()
            .memories_of(org, agent, ids)
            .await
            .map_err(|e| SearchError::Failed(e.to_string()))?;
        let mut found: std::collections::HashMap<MemoryId, Memory> = found
            .into_iter()
            .filter(|m| owners.contains(&m.owner()))
            .map(|m| (m.id, m))
            .collect();
        Ok(hits
            .into_iter()
            .filter_map(|(id, score)| {
                Some(Recalled {
                    memory: found.remove(&id)?,
                    score,
                })
            })
            .take(limit)
            .collect())
    }

    /// Stamps `last_recalled_at` on what a turn recalled (at most once a
    /// minute each).
    pub async fn recalled(&self, org: OrgId, agent: AgentId, ids: Vec<MemoryId>) {
        if ids.is_empty() {
            return;
        }
        let stamped = self
            .store
            .memories()
            .memories_recalled(org, agent, ids, Utc::now())
            .await;
        if let Err(error) = stamped {
            tracing::warn!(%error, "stamping recalled memories failed");
        }
    }

    /// Tells the purge that memories were forgotten.
    pub fn forgotten(&self) {
        self.purge.notify_one();
    }

    async fn purge_loop(self: Arc<Self>) {
        loop {
            match self.store.memories().memory_purge_step(PURGE_BATCH).await {
                Ok(0) => {
                    let _ =
                        tokio::time::timeout(Duration::from_secs(5), self.purge.notified()).await;
                }
                Ok(_) => self.search.index().nudge(),
                Err(error) => {
                    tracing::error!(%error, "the memory purge failed; retrying");
                    tokio::time::sleep(Duration::from_secs(5)).await;
                }
            }
        }
    }
}
