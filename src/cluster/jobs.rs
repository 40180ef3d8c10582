//! Stored jobs on PostgreSQL (`scale.md` §5): purges, schedules, runs and
//! the other files' background work, each in a shard. A node claims the
//! due jobs of the shards it owns with `FOR UPDATE SKIP LOCKED`, so two
//! nodes never claim one job; a claim is held until `claimed_until`, and
//! one that runs out (its node died or stalled) is claimed again. The
//! claim also takes the job's `job_runs(kind, slot)` row, so a slot that
//! another job already ran is dropped, never run twice.

use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio_postgres::{Client, GenericClient};

use super::{NodeId, Shard};
use crate::store::pg::PgError;

/// What a job does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobKind {
    /// Removes a deleted thread's history (`slot`: the thread's id).
    PurgeThread,
    /// Collects a turn's memories (`slot`: `{thread}:{turn}`; body: the
    /// `CollectJob`).
    CollectMemories,
    /// Parses, chunks and indexes a knowledge document (`slot`: the
    /// document's id; body: the `IngestJob`).
    IngestDocument,
}

impl JobKind {
    /// As the `kind` column spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PurgeThread => "purge_thread",
            Self::CollectMemories => "collect_memories",
            Self::IngestDocument => "ingest_document",
        }
    }

    fn parse(kind: &str) -> Option<Self> {
        match kind {
            "purge_thread" => Some(Self::PurgeThread),
            "collect_memories" => Some(Self::CollectMemories),
            "ingest_document" => Some(Self::IngestDocument),
            _ => None,
        }
    }
}

/// A job to store.
#[derive(Clone, Debug)]
pub struct NewJob {
    pub kind: JobKind,
    pub shard: Shard,
    /// What the job is for, unique per kind (a thread's id, a schedule's
    /// firing).
    pub slot: String,
    pub due_at: DateTime<Utc>,
    pub body: serde_json::Value,
}

/// A job this node holds until it finishes it or its claim runs out.
#[derive(Clone, Debug, PartialEq)]
pub struct ClaimedJob {
    pub id: uuid::Uuid,
    pub kind: JobKind,
    pub shard: Shard,
    pub slot: String,
    /// How many times it was claimed, this time included.
    pub attempts: i32,
    pub body: serde_json::Value,
}

/// Stores `job` (in the caller's transaction, with the write that made
/// it); false when a job of its kind and slot is already pending.
pub async fn enqueue(client: &impl GenericClient, job: &NewJob) -> Result<bool, PgError> {
    let stored = client
        .execute(
            "INSERT INTO jobs (id, kind, shard, slot, due_at, body)
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (kind, slot) DO NOTHING",
            &[
                &uuid::Uuid::now_v7(),
                &job.kind.as_str(),
                &job.shard.sql(),
                &job.slot,
                &job.due_at,
                &job.body,
            ],
        )
        .await?;
    client.execute("NOTIFY confer_jobs", &[]).await?;
    Ok(stored == 1)
}

/// Claims up to `limit` due jobs of `kind` in `shards` for `node`, each
/// held for `hold`, oldest due first. A job whose slot another job ran is deleted
/// instead; a kind this build does not know is left alone.
pub async fn claim(
    client: &mut Client,
    node: NodeId,
    (kind, shards): (JobKind, &[Shard]),
    hold: Duration,
    limit: i64,
) -> Result<Vec<ClaimedJob>, PgError> {
    let shards: Vec<i16> = shards.iter().map(|s| s.sql()).collect();
    let hold_ms = i64::try_from(hold.as_millis()).unwrap_or(i64::MAX);
    let tx = client.transaction().await?;
    let due = tx
        .query(
            "SELECT id, kind, shard, slot, attempts, body FROM jobs
             WHERE due_at <= now() AND shard = ANY($1) AND kind = $3
               AND (claimed_by IS NULL OR claimed_until < now())
             ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED",
            &[&shards, &limit, &kind.as_str()],
        )
        .await?;
    let mut claimed = Vec::with_capacity(due.len());
    for row in due {
        let id: uuid::Uuid = row.get("id");
        let kind: String = row.get("kind");
        let slot: String = row.get("slot");
        let (Some(known), Some(shard)) = (JobKind::parse(&kind), Shard::from_sql(row.get("shard")))
        else {
            continue;
        };
        let ours = tx
            .query_opt(
                "INSERT INTO job_runs (kind, slot, job_id, node_id) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (kind, slot) DO UPDATE SET node_id = EXCLUDED.node_id
                 WHERE job_runs.job_id = EXCLUDED.job_id
                 RETURNING 1",
                &[&kind, &slot, &id, &node.0],
            )
            .await?;
        if ours.is_none() {
            tx.execute("DELETE FROM jobs WHERE id = $1", &[&id]).await?;
            continue;
        }
        let attempts: i32 = tx
            .query_one(
                "UPDATE jobs SET claimed_by = $2,
                    claimed_until = now() + $3 * interval '1 millisecond',
                    attempts = attempts + 1
                 WHERE id = $1 RETURNING attempts",
                &[&id, &node.0, &(hold_ms as f64)],
            )
            .await?
            .get(0);
        claimed.push(ClaimedJob {
            id,
            kind: known,
            shard,
            slot,
            attempts,
            body: row.get("body"),
        });
    }
    tx.commit().await?;
    Ok(claimed)
}

/// Ends a job `node` holds; false when its claim ran out and another
/// node may have it.
pub async fn finish(
    client: &impl GenericClient,
    node: NodeId,
    job: uuid::Uuid,
) -> Result<bool, PgError> {
    let deleted = client
        .execute(
            "DELETE FROM jobs WHERE id = $1 AND claimed_by = $2",
            &[&job, &node.0],
        )
        .await?;
    Ok(deleted == 1)
}

/// Lets a job `node` holds go, due again at `due_at` (a step done, more
/// to do; or a failure to retry).
pub async fn release(
    client: &impl GenericClient,
    node: NodeId,
    job: uuid::Uuid,
    due_at: DateTime<Utc>,
) -> Result<bool, PgError> {
    let released = client
        .execute(
            "UPDATE jobs SET claimed_by = NULL, claimed_until = NULL, due_at = $3
             WHERE id = $1 AND claimed_by = $2",
            &[&job, &node.0, &due_at],
        )
        .await?;
    Ok(released == 1)
}
