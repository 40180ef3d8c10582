//! The port of agents' memories (`knowledge.md` §5) and of the search
//! index's change feed, on either store. Each node's tantivy index is a
//! cache of these rows (`scale.md` §5): it applies the feed's changes in
//! order, and rebuilds from [`MemoryRecords::memory_ids`] when the feed
//! no longer holds what it missed.

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, MemoryId, OrgId, StoreFuture};

use super::SledRecords;
use crate::knowledge::memory::{Memory, MemoryScope, Owner};
use crate::store::knowledge::changes::IndexChange;
use crate::store::knowledge::collect::CollectJob;
use crate::store::knowledge::memories::MemoryWritten;

/// Which of an agent's memories a page lists.
#[derive(Clone, Debug, Default)]
pub struct MemoryFilter {
    /// Only these owners' (every owner's when `None`).
    pub owners: Option<Vec<Owner>>,
    /// Only memories of this scope.
    pub only: Option<MemoryScope>,
}

/// Memories, their forgetting, and the index's change feed.
pub trait MemoryRecords: Send + Sync + 'static {
    /// Stores `memory` unless its owner has the same content; past the
    /// owner's `max_per_owner` the least recently recalled goes with it,
    /// and `OrgFull` once the org holds `max_per_org`.
    fn put_memory(
        &self,
        memory: Memory,
        max_per_owner: usize,
        max_per_org: u64,
    ) -> StoreFuture<MemoryWritten>;

    /// The memory `id` of `agent`, unless deleted or forgotten.
    fn memory(&self, org: OrgId, agent: AgentId, id: MemoryId) -> StoreFuture<Option<Memory>>;

    /// The memories `ids` of `agent` not deleted or forgotten, in any
    /// order (a recall's hits, read at once).
    fn memories_of(
        &self,
        org: OrgId,
        agent: AgentId,
        ids: Vec<MemoryId>,
    ) -> StoreFuture<Vec<Memory>>;

    /// A page of `agent`'s memories under `filter`, newest first, strictly
    /// older than `before`; with the next cursor when more follow.
    fn memories(
        &self,
        org: OrgId,
        agent: AgentId,
        filter: MemoryFilter,
        before: Option<MemoryId>,
        limit: usize,
    ) -> StoreFuture<(Vec<Memory>, Option<MemoryId>)>;

    /// Deletes one memory; false if there was none.
    fn delete_memory(&self, org: OrgId, agent: AgentId, id: MemoryId) -> StoreFuture<bool>;

    /// Hides at once every memory of `owner` (every owner when `None`)
    /// of `agent` (every agent when `None`); the purge removes them.
    fn forget_memories(
        &self,
        org: OrgId,
        agent: Option<AgentId>,
        owner: Option<Owner>,
    ) -> StoreFuture<()>;

    /// One step of the purge of forgotten memories: up to `batch` removed
    /// (a marker once none is left under it); 0 when nothing was to do.
    fn memory_purge_step(&self, batch: usize) -> StoreFuture<usize>;

    /// Stamps `last_recalled_at` on `ids` not stamped in the last minute.
    fn memories_recalled(
        &self,
        org: OrgId,
        agent: AgentId,
        ids: Vec<MemoryId>,
        now: DateTime<Utc>,
    ) -> StoreFuture<()>;

    /// Every memory's place: what a rebuilt index holds.
    fn memory_ids(&self) -> StoreFuture<Vec<(OrgId, AgentId, MemoryId)>>;

    /// Queues the collection of a turn's memories unless that turn has one
    /// already; whether it did.
    fn queue_collection(&self, job: CollectJob) -> StoreFuture<bool>;

    /// Up to `limit` changes after `seq`, in order; `None` when the feed
    /// no longer holds every change after `seq` (the index is rebuilt).
    fn index_changes_after(
        &self,
        seq: u64,
        limit: usize,
    ) -> StoreFuture<Option<Vec<(u64, IndexChange)>>>;

    /// The last change the feed no longer holds (0 when it holds all): a
    /// rebuilt index applies what follows it.
    fn index_floor(&self) -> StoreFuture<u64>;

    /// The index committed every change up to `seq`: sled's one index
    /// prunes its log; a cluster's feed serves every node's index, and
    /// its rows are removed by age instead.
    fn index_committed(&self, seq: u64) -> StoreFuture<()>;

    /// The feed's name: an index whose last commit names another feed
    /// (built from another database) is rebuilt.
    fn index_feed(&self) -> StoreFuture<String>;
}

impl MemoryRecords for SledRecords {
    fn put_memory(
        &self,
        memory: Memory,
        max_per_owner: usize,
        max_per_org: u64,
    ) -> StoreFuture<MemoryWritten> {
        self.write(move |s| s.put_memory(memory, max_per_owner, max_per_org))
    }

    fn memory(&self, org: OrgId, agent: AgentId, id: MemoryId) -> StoreFuture<Option<Memory>> {
        self.read(move |s| s.memory(org, agent, id))
    }

    fn memories_of(
        &self,
        org: OrgId,
        agent: AgentId,
        ids: Vec<MemoryId>,
    ) -> StoreFuture<Vec<Memory>> {
        self.read(move |s| {
            let mut found = Vec::with_capacity(ids.len());
            for id in ids {
                found.extend(s.memory(org, agent, id)?);
            }
            Ok(found)
        })
    }

    fn memories(
        &self,
        org: OrgId,
        agent: AgentId,
        filter: MemoryFilter,
        before: Option<MemoryId>,
        limit: usize,
    ) -> StoreFuture<(Vec<Memory>, Option<MemoryId>)> {
        self.read(move |s| {
            s.memories(
                org,
                agent,
                (filter.owners.as_deref(), filter.only),
                before,
                limit,
            )
        })
    }

    fn delete_memory(&self, org: OrgId, agent: AgentId, id: MemoryId) -> StoreFuture<bool> {
        self.write(move |s| s.delete_memory(org, agent, id))
    }

    fn forget_memories(
        &self,
        org: OrgId,
        agent: Option<AgentId>,
        owner: Option<Owner>,
    ) -> StoreFuture<()> {
        self.write(move |s| s.forget_memories(org, agent, owner.as_ref()))
    }

    fn memory_purge_step(&self, batch: usize) -> StoreFuture<usize> {
        // Background work nobody waits on: not flushed (an idle step
        // would cost a flush every 5 s); a step lost to a crash is redone.
        self.read(move |s| s.memory_purge_step(batch))
    }

    fn memories_recalled(
        &self,
        org: OrgId,
        agent: AgentId,
        ids: Vec<MemoryId>,
        now: DateTime<Utc>,
    ) -> StoreFuture<()> {
        self.write(move |s| s.memories_recalled(org, agent, &ids, now))
    }

    fn memory_ids(&self) -> StoreFuture<Vec<(OrgId, AgentId, MemoryId)>> {
        self.read(|s| s.memory_ids())
    }

    fn queue_collection(&self, job: CollectJob) -> StoreFuture<bool> {
        self.write(move |s| s.put_collect_job(&job))
    }

    fn index_changes_after(
        &self,
        seq: u64,
        limit: usize,
    ) -> StoreFuture<Option<Vec<(u64, IndexChange)>>> {
        // sled's log is pruned only past the index's own commit.
        self.read(move |s| s.index_changes_after(seq, limit).map(Some))
    }

    fn index_floor(&self) -> StoreFuture<u64> {
        // The whole log again after a rebuild: a change it holds may be
        // for a generation not yet searchable when the rebuild read sled.
        Box::pin(async { Ok(0) })
    }

    fn index_committed(&self, seq: u64) -> StoreFuture<()> {
        self.read(move |s| s.prune_index_changes(seq))
    }

    fn index_feed(&self) -> StoreFuture<String> {
        // Marks written before feeds were named have none: sled's is "".
        Box::pin(async { Ok(String::new()) })
    }
}
