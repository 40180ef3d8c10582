//! Memories on PostgreSQL (`knowledge.md` §5): a write counts the org's
//! and the owner's memories under an advisory lock of the org and logs
//! its index changes in the same transaction; a forget is a marker the
//! reads check, removed by the purge once nothing under it is left (any
//! node may run a step: the rows are taken with `SKIP LOCKED`).

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, MemoryId, OrgId, StoreError, StoreFuture};
use tokio_postgres::Transaction;

use super::index_feed::log_changes;
use super::memory_purge::remove;
use super::records::{PgStore, V, body, db, hold_lock, record};
use crate::knowledge::memory::{Memory, Owner, content_key};
use crate::store::knowledge::changes::IndexChange;
use crate::store::knowledge::collect::CollectJob;
use crate::store::knowledge::memories::{Forget, MemoryWritten, RECALL_STAMP_EVERY};
use crate::store::port::{MemoryFilter, MemoryRecords};

/// The advisory lock (`pg_advisory_xact_lock(MEMORY_COUNT_LOCK, org)`)
/// under which an org's memories are counted and evicted.
const MEMORY_COUNT_LOCK: i32 = 17;
/// A marker's agent for every agent, as sled keys it.
const EVERY_AGENT: uuid::Uuid = uuid::Uuid::max();
/// A marker's owner for every owner, as sled keys it.
const EVERY_OWNER: [u8; 16] = [0xff; 16];

/// The condition under which a marker hides memory `m` (sled's three
/// markers: this agent and owner, every agent, every owner).
macro_rules! hidden {
    () => {
        "EXISTS (SELECT 1 FROM memory_forgets f WHERE f.org_id = m.org_id
            AND ((f.agent_id = m.agent_id AND f.owner_key = m.owner_key)
              OR (f.agent_id = 'ffffffff-ffff-ffff-ffff-ffffffffffff' AND f.owner_key = m.owner_key)
              OR (f.agent_id = m.agent_id AND f.owner_key = '\\xffffffffffffffffffffffffffffffff'))
            AND m.id < f.before)"
    };
}

const MEMORY: &str = concat!(
    "SELECT m.v, m.body FROM memories m
     WHERE m.org_id = $1 AND m.agent_id = $2 AND m.id = $3 AND NOT ",
    hidden!()
);

const BY_IDS: &str = concat!(
    "SELECT m.v, m.body FROM memories m
     WHERE m.org_id = $1 AND m.agent_id = $2 AND m.id = ANY($3) AND NOT ",
    hidden!()
);

const PAGE: &str = concat!(
    "SELECT m.v, m.body FROM memories m
     WHERE m.org_id = $1 AND m.agent_id = $2
       AND ($3::uuid IS NULL OR m.id < $3)
       AND ($4::bytea[] IS NULL OR m.owner_key = ANY($4))
       AND ($5::text IS NULL OR m.body->>'scope' = $5)
       AND NOT ",
    hidden!(),
    " ORDER BY m.id DESC LIMIT $6"
);

/// Takes the org's count lock for the rest of `tx`.
async fn lock_org(tx: &Transaction<'_>, org: OrgId) -> Result<(), StoreError> {
    hold_lock(tx, MEMORY_COUNT_LOCK, org.0).await?;
    Ok(())
}

/// `memory` read in `tx`, hidden ones included, with whether a marker
/// hides it.
async fn memory_in(
    tx: &Transaction<'_>,
    org: OrgId,
    agent: AgentId,
    id: MemoryId,
) -> Result<Option<(Memory, bool)>, StoreError> {
    let sql = concat!(
        "SELECT m.v, m.body, ",
        hidden!(),
        " AS hidden FROM memories m WHERE m.org_id = $1 AND m.agent_id = $2 AND m.id = $3"
    );
    let row = tx
        .query_opt(sql, &[&org.0, &agent.0, &id.0])
        .await
        .map_err(db)?;
    row.map(|row| Ok((record(&row)?, row.get("hidden"))))
        .transpose()
}

impl MemoryRecords for PgStore {
    fn put_memory(
        &self,
        memory: Memory,
        max_per_owner: usize,
        max_per_org: u64,
    ) -> StoreFuture<MemoryWritten> {
        let store = self.clone();
        Box::pin(async move {
            let (org, agent) = (memory.org_id, memory.agent_id);
            let owner = memory.owner().key().to_vec();
            let content = content_key(&memory.content).to_vec();
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            lock_org(&tx, org).await?;
            let same = tx
                .query_opt(
                    "SELECT id FROM memories
                     WHERE org_id = $1 AND agent_id = $2 AND owner_key = $3 AND content_key = $4",
                    &[&org.0, &agent.0, &owner, &content],
                )
                .await
                .map_err(db)?;
            let mut doomed = Vec::new();
            if let Some(row) = same {
                let id = MemoryId(row.get(0));
                match memory_in(&tx, org, agent, id).await? {
                    Some((found, false)) => return Ok(MemoryWritten::Duplicate(Box::new(found))),
                    // Forgotten, not yet purged: it goes now.
                    _ => doomed.push(id.0),
                }
            }
            let held: i64 = tx
                .query_one("SELECT count(*) FROM memories WHERE org_id = $1", &[&org.0])
                .await
                .map_err(db)?
                .get(0);
            // Forgotten memories count until purged, as on sled.
            if u64::try_from(held).unwrap_or(0) >= max_per_org {
                return Ok(MemoryWritten::OrgFull);
            }
            // The owner's visible memories, as sled evicts among them.
            let owned = tx
                .query(
                    concat!(
                        "SELECT m.v, m.body FROM memories m
                         WHERE m.org_id = $1 AND m.agent_id = $2 AND m.owner_key = $3
                           AND m.id <> ALL($4) AND NOT ",
                        hidden!()
                    ),
                    &[&org.0, &agent.0, &owner, &doomed],
                )
                .await
                .map_err(db)?;
            let over = (owned.len() + 1).saturating_sub(max_per_owner.max(1));
            if over > 0 {
                let mut owned = owned
                    .iter()
                    .map(record)
                    .collect::<Result<Vec<Memory>, _>>()?;
                owned.sort_by_key(Memory::eviction_key);
                doomed.extend(owned.iter().take(over).map(|m| m.id.0));
            }
            remove(&tx, org, agent, &doomed).await?;
            tx.execute(
                "INSERT INTO memories
                   (org_id, agent_id, id, owner_key, content_key, created_at, v, body)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                &[
                    &org.0,
                    &agent.0,
                    &memory.id.0,
                    &owner,
                    &content,
                    &memory.created_at,
                    &V,
                    &body(&memory),
                ],
            )
            .await
            .map_err(db)?;
            let added = IndexChange::AddMemory {
                org_id: org,
                agent_id: agent,
                memory_id: memory.id,
            };
            let seq = log_changes(&tx, &[added]).await?;
            tx.commit().await.map_err(db)?;
            Ok(MemoryWritten::Stored {
                memory: Box::new(memory),
                seq,
            })
        })
    }

    fn memory(&self, org: OrgId, agent: AgentId, id: MemoryId) -> StoreFuture<Option<Memory>> {
        let store = self.clone();
        Box::pin(async move { store.one(MEMORY, &[&org.0, &agent.0, &id.0]).await })
    }

    fn memories_of(
        &self,
        org: OrgId,
        agent: AgentId,
        ids: Vec<MemoryId>,
    ) -> StoreFuture<Vec<Memory>> {
        let store = self.clone();
        Box::pin(async move {
            let ids: Vec<uuid::Uuid> = ids.iter().map(|id| id.0).collect();
            store.all(BY_IDS, &[&org.0, &agent.0, &ids]).await
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
        let store = self.clone();
        Box::pin(async move {
            let owners: Option<Vec<Vec<u8>>> = filter
                .owners
                .map(|owners| owners.iter().map(|o| o.key().to_vec()).collect());
            let scope = filter.only.map(|scope| match scope {
                crate::knowledge::memory::MemoryScope::User => "user",
                crate::knowledge::memory::MemoryScope::Agent => "agent",
            });
            let before = before.map(|id| id.0);
            let fetch = super::records::page_fetch(limit);
            let mut page: Vec<Memory> = store
                .all(PAGE, &[&org.0, &agent.0, &before, &owners, &scope, &fetch])
                .await?;
            let more = page.len() > limit;
            page.truncate(limit);
            let next = more.then(|| page.last().map(|m| m.id)).flatten();
            Ok((page, next))
        })
    }

    fn delete_memory(&self, org: OrgId, agent: AgentId, id: MemoryId) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            lock_org(&tx, org).await?;
            let Some((_, false)) = memory_in(&tx, org, agent, id).await? else {
                return Ok(false);
            };
            remove(&tx, org, agent, &[id.0]).await?;
            tx.commit().await.map_err(db)?;
            Ok(true)
        })
    }

    fn forget_memories(
        &self,
        org: OrgId,
        agent: Option<AgentId>,
        owner: Option<Owner>,
    ) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            let marker = Forget {
                before: MemoryId::new(),
            };
            let agent = agent.map_or(EVERY_AGENT, |a| a.0);
            let owner = owner.map_or(EVERY_OWNER, |o| o.key()).to_vec();
            store
                .execute(
                    "INSERT INTO memory_forgets (org_id, agent_id, owner_key, before, v, body)
                     VALUES ($1, $2, $3, $4, $5, $6)
                     ON CONFLICT (org_id, agent_id, owner_key) DO UPDATE
                     SET before = EXCLUDED.before, v = EXCLUDED.v, body = EXCLUDED.body",
                    &[&org.0, &agent, &owner, &marker.before.0, &V, &body(&marker)],
                )
                .await?;
            Ok(())
        })
    }

    fn memory_purge_step(&self, batch: usize) -> StoreFuture<usize> {
        let store = self.clone();
        Box::pin(async move { store.purge_forgotten(batch).await })
    }

    fn memories_recalled(
        &self,
        org: OrgId,
        agent: AgentId,
        ids: Vec<MemoryId>,
        now: DateTime<Utc>,
    ) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            let ids: Vec<uuid::Uuid> = ids.iter().map(|id| id.0).collect();
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            // Held, so a memory deleted meanwhile is not written back.
            let rows = tx
                .query(
                    "SELECT v, body FROM memories
                     WHERE org_id = $1 AND agent_id = $2 AND id = ANY($3) FOR UPDATE",
                    &[&org.0, &agent.0, &ids],
                )
                .await
                .map_err(db)?;
            let mut stamped = Vec::new();
            for row in &rows {
                let mut memory: Memory = record(row)?;
                if memory
                    .last_recalled_at
                    .is_none_or(|at| now - at >= RECALL_STAMP_EVERY)
                {
                    memory.last_recalled_at = Some(now);
                    stamped.push(memory);
                }
            }
            for memory in &stamped {
                tx.execute(
                    "UPDATE memories SET body = $4 WHERE org_id = $1 AND agent_id = $2 AND id = $3",
                    &[&org.0, &agent.0, &memory.id.0, &body(memory)],
                )
                .await
                .map_err(db)?;
            }
            tx.commit().await.map_err(db)?;
            Ok(())
        })
    }

    fn memory_ids(&self) -> StoreFuture<Vec<(OrgId, AgentId, MemoryId)>> {
        let store = self.clone();
        Box::pin(async move {
            let session = store.session().await?;
            let rows = session
                .db()
                .query("SELECT org_id, agent_id, id FROM memories", &[])
                .await
                .map_err(db)?;
            Ok(rows
                .iter()
                .map(|r| (OrgId(r.get(0)), AgentId(r.get(1)), MemoryId(r.get(2))))
                .collect())
        })
    }

    fn queue_collection(&self, job: CollectJob) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(async move { store.queue_collection_job(&job).await })
    }

    fn index_changes_after(
        &self,
        seq: u64,
        limit: usize,
    ) -> StoreFuture<Option<Vec<(u64, IndexChange)>>> {
        let store = self.clone();
        Box::pin(async move { store.changes_after(seq, limit).await })
    }

    fn index_floor(&self) -> StoreFuture<u64> {
        let store = self.clone();
        Box::pin(async move { store.changes_floor().await })
    }

    fn index_committed(&self, _seq: u64) -> StoreFuture<()> {
        // Every node reads this feed: its rows go by age (the sweep).
        Box::pin(async { Ok(()) })
    }

    fn index_feed(&self) -> StoreFuture<String> {
        let store = self.clone();
        Box::pin(async move { store.feed_name().await })
    }
}
