//! Memory collections on PostgreSQL (`scale.md` §5): each is a stored job
//! of kind `collect_memories` in its thread's shard, slot
//! `{thread}:{turn}` (so a turn is collected once however often it is
//! told), claimed by the shard's owner and held while its call runs.

use std::time::Duration;

use chrono::{DateTime, Utc};
use confer_actors::StoreError;

use super::records::{PgStore, store_error};
use crate::cluster::jobs::{self, JobKind, NewJob};
use crate::cluster::{NodeId, Shard};
use crate::store::knowledge::collect::CollectJob;

/// How long a claimed collection is held: its call's limit, and more.
const COLLECTION_HOLD: Duration = Duration::from_secs(180);

/// A claimed collection: the job's id and what it collects, its
/// `attempts` counting this one.
pub struct ClaimedCollection {
    pub id: uuid::Uuid,
    pub job: CollectJob,
}

/// The stored job of collection `job` (queued, or copied from sled).
pub(crate) fn collection_job(job: &CollectJob) -> Result<NewJob, StoreError> {
    let mut job = job.clone();
    // `jobs.body` is jsonb, which refuses U+0000; the transcript is only
    // read by the model.
    job.transcript = job.transcript.replace('\0', "\u{fffd}");
    Ok(NewJob {
        kind: JobKind::CollectMemories,
        shard: Shard::of(job.thread_id),
        slot: format!("{}:{}", job.thread_id, job.turn),
        due_at: job.due_at,
        body: serde_json::to_value(&job).map_err(|e| StoreError::Codec(e.to_string()))?,
    })
}

impl PgStore {
    /// Stores `job` unless its turn has one; whether it did.
    pub(crate) async fn queue_collection_job(&self, job: &CollectJob) -> Result<bool, StoreError> {
        let new = collection_job(job)?;
        let session = self.session().await?;
        jobs::enqueue(&session.client, &new)
            .await
            .map_err(store_error)
    }

    /// Claims up to `limit` due collections of `shards` for `node`.
    pub async fn claim_collections(
        &self,
        node: NodeId,
        shards: &[Shard],
        limit: i64,
    ) -> Result<Vec<ClaimedCollection>, StoreError> {
        let mut session = self.session().await?;
        let claimed = jobs::claim(
            &mut session.client,
            node,
            (JobKind::CollectMemories, shards),
            COLLECTION_HOLD,
            limit,
        )
        .await
        .map_err(store_error)?;
        let mut collections = Vec::with_capacity(claimed.len());
        for held in claimed {
            let mut job: CollectJob = serde_json::from_value(held.body)
                .map_err(|e| StoreError::Codec(format!("a memory collection: {e}")))?;
            job.attempts = u32::try_from(held.attempts).unwrap_or(u32::MAX);
            collections.push(ClaimedCollection { id: held.id, job });
        }
        Ok(collections)
    }

    /// Ends a collection `node` holds (done, or dropped after its tries).
    pub async fn finish_collection(&self, node: NodeId, id: uuid::Uuid) -> Result<(), StoreError> {
        let session = self.session().await?;
        jobs::finish(&session.client, node, id)
            .await
            .map_err(store_error)?;
        Ok(())
    }

    /// Lets a collection `node` holds go, due again at `due_at`.
    pub async fn retry_collection(
        &self,
        node: NodeId,
        id: uuid::Uuid,
        due_at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let session = self.session().await?;
        jobs::release(&session.client, node, id, due_at)
            .await
            .map_err(store_error)?;
        Ok(())
    }
}
