//! The jobs a copy leaves behind, as PostgreSQL's own writes would have
//! queued them: a deleted thread's purge, a turn's memory collection.

use confer_actors::ThreadId;

use super::ImportError;
use crate::cluster::Shard;
use crate::cluster::jobs::{self, JobKind, NewJob};
use crate::store::SledStore;
use crate::store::pg::records::db;

/// A turn's pending memory collection becomes a job, as a turn on
/// PostgreSQL queues one.
pub(super) async fn queue_collections(
    from: &SledStore,
    tx: &tokio_postgres::Transaction<'_>,
) -> Result<(), ImportError> {
    for job in from.collect_jobs()? {
        let job = crate::store::pg::collections::collection_job(&job)?;
        jobs::enqueue(tx, &job).await?;
    }
    Ok(())
}

/// A deleted thread's marker became a row; its purge becomes a job, as a
/// deletion on PostgreSQL makes one.
pub(super) async fn purge_deleted_threads(
    tx: &tokio_postgres::Transaction<'_>,
) -> Result<(), ImportError> {
    let rows = tx
        .query("SELECT thread_id, org_id FROM deleted_threads", &[])
        .await
        .map_err(db)?;
    for row in rows {
        let thread: uuid::Uuid = row.get(0);
        let org: uuid::Uuid = row.get(1);
        let job = NewJob {
            kind: JobKind::PurgeThread,
            shard: Shard::of(ThreadId(thread)),
            slot: thread.to_string(),
            due_at: chrono::Utc::now(),
            body: serde_json::json!({ "org_id": org }),
        };
        jobs::enqueue(tx, &job).await?;
    }
    Ok(())
}

/// A document's pending ingestion becomes a job. One leased when the
/// store stopped was cut short: it starts again with its attempts counted.
pub(super) async fn queue_ingestion(
    from: &SledStore,
    tx: &tokio_postgres::Transaction<'_>,
) -> Result<(), ImportError> {
    for mut job in from.ingest_jobs()? {
        job.lease_until = None;
        jobs::enqueue(tx, &crate::store::pg::documents::ingest_job(&job)?).await?;
    }
    Ok(())
}
