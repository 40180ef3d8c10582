//! A thread's delete and the purge of its history on PostgreSQL. The
//! delete removes the thread's row (readers see it gone at once), leaves a
//! `deleted_threads` marker and stores a purge job in the thread's shard,
//! in one transaction; whichever node owns the shard claims the job and
//! removes the history in batches (`scale.md` §5), delegated children
//! first (each deleted, so purged in turn). Usage records outlive it.

use chrono::Utc;
use confer_actors::{AgentId, OrgId, StoreError, ThreadId};

use super::records::{PgStore, db, store_error};
use crate::cluster::jobs::{self, JobKind, NewJob};
use crate::cluster::{NodeId, Shard};

/// Rows removed per statement of a purge.
pub const PURGE_BATCH: i64 = 1000;

/// How long a node holds a purge job before another may take it.
const PURGE_HOLD: std::time::Duration = std::time::Duration::from_secs(60);

/// The tables that hold a thread's history, emptied in this order.
const HISTORY: [&str; 7] = [
    "participants",
    "plans",
    "traces",
    "turns",
    "keyed_sends",
    "context_entries",
    "messages",
];

impl PgStore {
    /// See `ThreadRecords::delete_thread`.
    pub(super) async fn remove_thread(&self, org: OrgId, id: ThreadId) -> Result<bool, StoreError> {
        let mut session = self.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        let Some(row) = tx
            .query_opt(
                "DELETE FROM threads WHERE org_id = $1 AND id = $2
                 RETURNING agent_id, created_at, shard",
                &[&org.0, &id.0],
            )
            .await
            .map_err(db)?
        else {
            return Ok(false);
        };
        let agent = AgentId(row.get("agent_id"));
        let created_at: chrono::DateTime<Utc> = row.get("created_at");
        let shard = Shard::from_sql(row.get("shard"))
            .ok_or_else(|| StoreError::Codec("a thread's shard out of range".into()))?;
        tx.execute(
            "INSERT INTO deleted_threads (thread_id, org_id, agent_id, created_at, deleted_at)
             VALUES ($1, $2, $3, $4, now()) ON CONFLICT (thread_id) DO NOTHING",
            &[&id.0, &org.0, &agent.0, &created_at],
        )
        .await
        .map_err(db)?;
        let job = NewJob {
            kind: JobKind::PurgeThread,
            shard,
            slot: id.to_string(),
            due_at: Utc::now(),
            body: serde_json::json!({ "org_id": org }),
        };
        jobs::enqueue(&tx, &job).await.map_err(store_error)?;
        tx.commit().await.map_err(db)?;
        Ok(true)
    }

    /// Removes up to [`PURGE_BATCH`] rows of a deleted thread's history
    /// (or deletes up to that many of its children); 0 when nothing was
    /// left, and its marker is gone.
    pub async fn purge_step(&self, id: ThreadId) -> Result<u64, StoreError> {
        let Some(row) = self
            .session()
            .await?
            .client
            .query_opt(
                "SELECT org_id FROM deleted_threads WHERE thread_id = $1",
                &[&id.0],
            )
            .await
            .map_err(db)?
        else {
            return Ok(0);
        };
        let org = OrgId(row.get("org_id"));
        let children: Vec<ThreadId> = self
            .session()
            .await?
            .client
            .query(
                "SELECT id FROM threads WHERE org_id = $1 AND body ? 'delegation'
                   AND body -> 'delegation' ->> 'parent_thread_id' = $2 LIMIT $3",
                &[&org.0, &id.to_string(), &PURGE_BATCH],
            )
            .await
            .map_err(db)?
            .iter()
            .map(|row| ThreadId(row.get("id")))
            .collect();
        for child in &children {
            self.remove_thread(org, *child).await?;
        }
        if !children.is_empty() {
            return Ok(children.len() as u64);
        }
        // The thread's knowledge documents (their own purge follows).
        let documents = self
            .delete_scope_documents_now(org, crate::knowledge::Scope::Thread(id))
            .await?;
        if documents > 0 {
            return Ok(documents);
        }
        let session = self.session().await?;
        for table in HISTORY {
            let removed = session
                .db()
                .execute(
                    &format!(
                        "DELETE FROM {table} WHERE ctid IN
                           (SELECT ctid FROM {table} WHERE thread_id = $1 LIMIT $2)"
                    ),
                    &[&id.0, &PURGE_BATCH],
                )
                .await
                .map_err(db)?;
            if removed > 0 {
                return Ok(removed);
            }
        }
        session
            .db()
            .execute("DELETE FROM deleted_threads WHERE thread_id = $1", &[&id.0])
            .await
            .map_err(db)?;
        Ok(0)
    }

    /// Claims the due purge jobs of `shards` for `node` and purges each
    /// thread to the end; returns how many it finished. A purge cut short
    /// (the node died) is claimed again once its hold runs out and
    /// resumes where it stopped.
    pub async fn run_due_purges(
        &self,
        node: NodeId,
        shards: &[Shard],
    ) -> Result<usize, StoreError> {
        let claimed = {
            let mut session = self.session().await?;
            jobs::claim(
                &mut session.client,
                node,
                (JobKind::PurgeThread, shards),
                PURGE_HOLD,
                16,
            )
            .await
            .map_err(store_error)?
        };
        let mut finished = 0;
        for job in claimed.iter().filter(|j| j.kind == JobKind::PurgeThread) {
            let thread: ThreadId = job
                .slot
                .parse()
                .map_err(|_| StoreError::Codec(format!("a purge job's slot: {}", job.slot)))?;
            while self.purge_step(thread).await? > 0 {}
            let session = self.session().await?;
            if jobs::finish(&session.client, node, job.id)
                .await
                .map_err(store_error)?
            {
                finished += 1;
            }
        }
        Ok(finished)
    }
}
