//! The PostgreSQL store's upkeep, what sled's purge thread does for its own
//! files: past days' traces folded into analytics' day aggregates
//! (`analytics`), traces past `CONFER_TRACE_RETENTION_DAYS`, the slot rows of jobs
//! run over [`JOB_SLOTS_KEPT`] ago, send-limit rows idle for a day (their
//! next send has the whole allowance again, as with no row), thread
//! creation keys and marketplace `use` keys past their keeping (a later
//! request under the key is a new one either way), the org turn slots of nodes whose lease ran
//! out (their turns ended with them), public chats' threads past their
//! publication's retention (`publications`), and the search index's
//! changes past their week (`index_feed`).
//!
//! One node sweeps at a time: the sweep holds a session advisory lock on a
//! connection of its own (a node that dies mid-sweep drops it with the
//! connection), and a node finding it held skips its turn. Rows go in
//! batches of [`BATCH`], each its own statement, so no statement meets the
//! sessions' timeout and live writes wait on no long lock.

use chrono::{DateTime, TimeDelta, Utc};
use confer_actors::StoreError;

use super::records::{PgStore, db, store_error};

/// The advisory lock (`pg_try_advisory_lock(SWEEP_LOCK, 0)`) one sweep holds.
const SWEEP_LOCK: i32 = 10;
/// Rows one statement removes.
pub const BATCH: i64 = 5_000;
/// How long a job's slot row is kept after its run started: a slot fires
/// once, and no job is queued for a slot that old.
pub const JOB_SLOTS_KEPT: TimeDelta = TimeDelta::days(30);
/// How long a user's idle send-limit row is kept.
const SEND_LIMITS_KEPT: TimeDelta = TimeDelta::days(1);

/// What one sweep removed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Swept {
    /// Traces folded into analytics' day aggregates (those of past days).
    pub folded_traces: u64,
    pub traces: u64,
    pub job_slots: u64,
    pub send_limits: u64,
    pub thread_keys: u64,
    /// Marketplace `use` keys past their keeping.
    pub adoption_keys: u64,
    pub dead_turn_slots: u64,
    /// Public chats' threads past their publication's retention.
    pub public_threads: u64,
    /// Search index changes past `index_feed::CHANGES_KEPT`.
    pub index_changes: u64,
}

impl PgStore {
    /// Removes what is past its keeping at `now`; `None` when another node
    /// holds the sweep.
    pub async fn sweep(
        &self,
        trace_retention: TimeDelta,
        now: DateTime<Utc>,
    ) -> Result<Option<Swept>, StoreError> {
        let lock = self.database.dedicated().await.map_err(store_error)?;
        let held: bool = lock
            .client
            .query_one("SELECT pg_try_advisory_lock($1, 0)", &[&SWEEP_LOCK])
            .await
            .map_err(db)?
            .get(0);
        if !held {
            return Ok(None);
        }
        // The lock goes with `lock`'s connection when this returns.
        let session = self.session().await?;
        let client = session.db();
        let batches = |sql: &'static str, before: DateTime<Utc>| async move {
            let mut removed = 0;
            loop {
                let n = client.execute(sql, &[&before, &BATCH]).await.map_err(db)?;
                removed += n;
                if n < u64::try_from(BATCH).unwrap_or(u64::MAX) {
                    return Ok::<u64, StoreError>(removed);
                }
            }
        };
        // Past days' traces count in analytics' aggregates before any goes.
        let today = now.date_naive().and_time(chrono::NaiveTime::MIN).and_utc();
        let swept = Swept {
            folded_traces: self.fold_traces(today).await?,
            traces: batches(
                "DELETE FROM traces WHERE (id, started_at) IN
                   (SELECT id, started_at FROM traces
                    WHERE started_at < $1 AND folded LIMIT $2)",
                now - trace_retention,
            )
            .await?,
            job_slots: batches(
                "DELETE FROM job_runs WHERE (kind, slot) IN
                   (SELECT kind, slot FROM job_runs WHERE started_at < $1 LIMIT $2)",
                now - JOB_SLOTS_KEPT,
            )
            .await?,
            send_limits: batches(
                "DELETE FROM send_limits WHERE (org_id, subject) IN
                   (SELECT org_id, subject FROM send_limits WHERE tat < $1 LIMIT $2)",
                now - SEND_LIMITS_KEPT,
            )
            .await?,
            thread_keys: batches(
                "DELETE FROM keyed_threads WHERE (org_id, key_hash) IN
                   (SELECT org_id, key_hash FROM keyed_threads WHERE created_at < $1 LIMIT $2)",
                now - TimeDelta::hours(confer_actors::idempotency::KEEP_FOR_HOURS),
            )
            .await?,
            adoption_keys: batches(
                "DELETE FROM keyed_adoptions WHERE (org_id, key_hash) IN
                   (SELECT org_id, key_hash FROM keyed_adoptions WHERE created_at < $1 LIMIT $2)",
                now - TimeDelta::hours(confer_actors::idempotency::KEEP_FOR_HOURS),
            )
            .await?,
            dead_turn_slots: batches(
                "DELETE FROM org_turn_slots WHERE thread_id IN
                   (SELECT s.thread_id FROM org_turn_slots s
                    WHERE NOT EXISTS (SELECT 1 FROM nodes n
                                      WHERE n.id = s.node_id AND n.expires_at >= $1)
                    LIMIT $2)",
                now,
            )
            .await?,
            public_threads: self.sweep_public_retention(now).await?,
            index_changes: self.sweep_all_index_changes(now).await?,
        };
        drop(lock);
        Ok(Some(swept))
    }

    async fn sweep_all_index_changes(&self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        let mut removed = 0;
        loop {
            let n = self.sweep_index_changes(now, BATCH).await?;
            removed += n;
            if n < u64::try_from(BATCH).unwrap_or(u64::MAX) {
                return Ok(removed);
            }
        }
    }
}
