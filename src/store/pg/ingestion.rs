//! Knowledge ingestion on PostgreSQL (`knowledge.md` §2, `scale.md` §5):
//! a job is claimed by an owner of its shard under a lease
//! (`claimed_until`) written before any work; an attempt writes its
//! chunks under a new generation, and one transaction makes it
//! searchable. A claim that ran out was cut short by its node's loss: the
//! next claim purges what it wrote and counts it as an attempt, as sled's
//! restart does. The purge takes its marker with `SKIP LOCKED`, so any
//! node may run a step. What the index reads is in [`super::document_index`].

use chrono::{DateTime, TimeDelta, Utc};
use confer_actors::{DocumentId, OrgId, StoreError};
use tokio_postgres::GenericClient;
use tokio_postgres::types::Json;

use super::blobs::{self, knowledge_file};
use super::documents::{INGEST, document_for_update, put_document};
use super::index_feed::log_changes;
use super::records::{PgStore, V, db};
use crate::cluster::{NodeId, Shard};
use crate::knowledge::chunk::ChunkDraft;
use crate::knowledge::{Chunk, Document, DocumentStatus, IngestJob};
use crate::store::knowledge::MAX_ATTEMPTS;
use crate::store::knowledge::changes::IndexChange;

/// A marker's generation for the whole document.
const WHOLE_DOCUMENT: i64 = -1;

/// Queues the purge of `generation` of document `id` (`WHOLE_DOCUMENT`
/// with its file `sha256`).
async fn queue_purge(
    client: &impl GenericClient,
    org: OrgId,
    id: DocumentId,
    generation: i64,
) -> Result<(), StoreError> {
    client
        .execute(
            "INSERT INTO knowledge_purges (doc_id, generation, org_id) VALUES ($1, $2, $3)
             ON CONFLICT DO NOTHING",
            &[&id.0, &generation, &org.0],
        )
        .await
        .map_err(db)?;
    Ok(())
}

/// The document `id`, locked for the rest of `tx`, unless another
/// transaction holds it (or it is gone).
async fn document_unless_held(
    tx: &impl GenericClient,
    org: OrgId,
    id: DocumentId,
) -> Result<Option<Document>, StoreError> {
    let row = tx
        .query_opt(
            "SELECT v, body FROM documents WHERE org_id = $1 AND id = $2
             FOR UPDATE SKIP LOCKED",
            &[&org.0, &id.0],
        )
        .await
        .map_err(db)?;
    row.map(|row| super::records::record(&row)).transpose()
}

/// Whether the document `id` exists (held by another transaction or not).
async fn document_exists(
    tx: &impl GenericClient,
    org: OrgId,
    id: DocumentId,
) -> Result<bool, StoreError> {
    let row = tx
        .query_opt(
            "SELECT 1 FROM documents WHERE org_id = $1 AND id = $2",
            &[&org.0, &id.0],
        )
        .await
        .map_err(db)?;
    Ok(row.is_some())
}

/// The generation an attempt cut short left half written, if any.
fn unfinished(document: &Document) -> Option<u64> {
    (document.status == DocumentStatus::Indexing
        && Some(document.last_generation) != document.searchable_generation)
        .then_some(document.last_generation)
}

/// Ends the job of `job`'s document in `client`: due again at `retry_at`,
/// or gone.
async fn end_job(
    client: &impl GenericClient,
    job: &IngestJob,
    retry_at: Option<DateTime<Utc>>,
) -> Result<(), StoreError> {
    let slot = job.doc_id.to_string();
    match retry_at {
        Some(at) => client
            .execute(
                "UPDATE jobs SET claimed_by = NULL, claimed_until = NULL, due_at = $3, body = $4
                     WHERE kind = $1 AND slot = $2",
                &[&INGEST, &slot, &at, &Json(job)],
            )
            .await,
        None => {
            client
                .execute(
                    "DELETE FROM jobs WHERE kind = $1 AND slot = $2",
                    &[&INGEST, &slot],
                )
                .await
        }
    }
    .map_err(db)?;
    Ok(())
}

/// The failure of an attempt, in `client`: the document `failed` or
/// queued again, what it wrote queued for the purge.
async fn record_failure(
    client: &impl GenericClient,
    job: &IngestJob,
    reason: &str,
    retry_at: Option<DateTime<Utc>>,
    generation: Option<u64>,
) -> Result<Option<Document>, StoreError> {
    if let Some(generation) = generation {
        queue_purge(client, job.org_id, job.doc_id, generation as i64).await?;
    }
    let Some(mut document) = document_for_update(client, job.org_id, job.doc_id).await? else {
        end_job(client, job, None).await?;
        return Ok(None);
    };
    document.error = Some(reason.to_owned());
    document.updated_at = Utc::now();
    let mut again = job.clone();
    again.lease_until = None;
    again.error = Some(reason.to_owned());
    match retry_at {
        Some(at) => {
            again.next_attempt_at = at;
            document.status = DocumentStatus::Queued;
        }
        None => document.status = DocumentStatus::Failed,
    }
    end_job(client, &again, retry_at).await?;
    put_document(client, &document).await?;
    Ok(Some(document))
}

impl PgStore {
    /// Claims the oldest due ingestion job of `shards` for `node`, held
    /// until `lease` from now: its attempt counted and the document
    /// `parsing`, before any work. A job whose last claim ran out is an
    /// attempt cut short: failed after the last one.
    pub async fn claim_ingestion(
        &self,
        node: NodeId,
        shards: &[Shard],
        lease: TimeDelta,
    ) -> Result<Option<(IngestJob, Document)>, StoreError> {
        let shards: Vec<i16> = shards.iter().map(|s| s.sql()).collect();
        let mut session = self.session().await?;
        // A job failed for its last interrupted attempt is passed over.
        for _ in 0..16 {
            let tx = session.client.transaction().await.map_err(db)?;
            let Some(row) = tx
                .query_opt(
                    "SELECT id, claimed_by, body FROM jobs
                     WHERE kind = $1 AND shard = ANY($2) AND due_at <= now()
                       AND (claimed_by IS NULL OR claimed_until < now())
                     ORDER BY due_at LIMIT 1 FOR UPDATE SKIP LOCKED",
                    &[&INGEST, &shards],
                )
                .await
                .map_err(db)?
            else {
                return Ok(None);
            };
            let (id, lost): (uuid::Uuid, Option<uuid::Uuid>) = (row.get(0), row.get(1));
            let Json(mut job) = row
                .try_get::<_, Json<IngestJob>>(2)
                .map_err(|e| StoreError::Codec(format!("an ingestion job: {e}")))?;
            // Every other write locks the document before its job; this
            // claim found the job first, so it passes a document another
            // transaction holds (a delete, a reindex) rather than wait for
            // it, which could deadlock: the job is claimed next round.
            let (org, doc) = (job.org_id, job.doc_id);
            let Some(mut document) = document_unless_held(&tx, org, doc).await? else {
                if document_exists(&tx, org, doc).await? {
                    return Ok(None);
                }
                tx.execute("DELETE FROM jobs WHERE id = $1", &[&id])
                    .await
                    .map_err(db)?;
                tx.commit().await.map_err(db)?;
                continue;
            };
            if lost.is_some() {
                let reason = format!(
                    "interrupted by a node's loss (attempt {} of {MAX_ATTEMPTS})",
                    job.attempt
                );
                let wrote = unfinished(&document);
                if job.attempt >= MAX_ATTEMPTS {
                    record_failure(&tx, &job, &reason, None, wrote).await?;
                    tx.commit().await.map_err(db)?;
                    continue;
                }
                if let Some(generation) = wrote {
                    queue_purge(&tx, job.org_id, job.doc_id, generation as i64).await?;
                }
                job.error = Some(reason);
            }
            let now = Utc::now();
            job.attempt += 1;
            job.lease_until = Some(now + lease);
            document.claimed(job.attempt, now);
            put_document(&tx, &document).await?;
            tx.execute(
                "UPDATE jobs SET claimed_by = $2, claimed_until = $3, attempts = $4, body = $5
                 WHERE id = $1",
                &[
                    &id,
                    &node.0,
                    &job.lease_until,
                    &i32::try_from(job.attempt).unwrap_or(i32::MAX),
                    &Json(&job),
                ],
            )
            .await
            .map_err(db)?;
            tx.commit().await.map_err(db)?;
            return Ok(Some((job, document)));
        }
        Ok(None)
    }

    pub(super) async fn begin_indexing_on_pg(
        &self,
        org: OrgId,
        id: DocumentId,
    ) -> Result<Option<u64>, StoreError> {
        let mut session = self.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        let Some(mut document) = document_for_update(&tx, org, id).await? else {
            return Ok(None);
        };
        let generation = document.indexing(Utc::now());
        put_document(&tx, &document).await?;
        tx.commit().await.map_err(db)?;
        Ok(Some(generation))
    }

    pub(super) async fn put_chunks_on_pg(
        &self,
        id: DocumentId,
        generation: u64,
        drafts: &[ChunkDraft],
    ) -> Result<(), StoreError> {
        let session = self.session().await?;
        for batch in drafts.chunks(crate::store::purge::PURGE_BATCH) {
            let chunks: Vec<Chunk> = batch.iter().map(|d| d.chunk_of(id, generation)).collect();
            let ns: Vec<i32> = chunks.iter().map(|c| c.n as i32).collect();
            let bodies: Vec<Json<&Chunk>> = chunks.iter().map(Json).collect();
            session
                .db()
                .execute(
                    "INSERT INTO chunks (doc_id, generation, n, v, body)
                     SELECT $1, $2, c.n, $3, c.body FROM unnest($4::int[], $5::json[]) AS c(n, body)
                     ON CONFLICT DO NOTHING",
                    &[&id.0, &(generation as i64), &V, &ns, &bodies],
                )
                .await
                .map_err(db)?;
        }
        Ok(())
    }

    pub(super) async fn finish_ingest_on_pg(
        &self,
        org: OrgId,
        id: DocumentId,
        generation: u64,
        (count, pages): (u64, Option<u32>),
    ) -> Result<bool, StoreError> {
        let mut session = self.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        // The document before its job, as every write but a claim locks them.
        let found = document_for_update(&tx, org, id).await?;
        tx.execute(
            "DELETE FROM jobs WHERE kind = $1 AND slot = $2",
            &[&INGEST, &id.to_string()],
        )
        .await
        .map_err(db)?;
        let Some(mut document) = found else {
            queue_purge(&tx, org, id, generation as i64).await?;
            tx.commit().await.map_err(db)?;
            return Ok(false);
        };
        if let Some(old) = document.searchable_generation.filter(|g| *g != generation) {
            queue_purge(&tx, org, id, old as i64).await?;
        }
        document.ready(generation, (count, pages), Utc::now());
        put_document(&tx, &document).await?;
        tx.commit().await.map_err(db)?;
        Ok(true)
    }

    pub(super) async fn fail_attempt_on_pg(
        &self,
        job: &IngestJob,
        reason: &str,
        retry_at: Option<DateTime<Utc>>,
        generation: Option<u64>,
    ) -> Result<Option<Document>, StoreError> {
        let mut session = self.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        let stored = record_failure(&tx, job, reason, retry_at, generation).await?;
        tx.commit().await.map_err(db)?;
        Ok(stored)
    }

    /// One step of the purge (see [`crate::store::port::DocumentRecords`]).
    pub(super) async fn knowledge_purge_on_pg(&self, batch: usize) -> Result<usize, StoreError> {
        let mut session = self.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        let Some(marker) = tx
            .query_opt(
                "SELECT doc_id, generation, org_id, sha256 FROM knowledge_purges
                 ORDER BY doc_id, generation LIMIT 1 FOR UPDATE SKIP LOCKED",
                &[],
            )
            .await
            .map_err(db)?
        else {
            return Ok(0);
        };
        let (doc, generation, org, sha256): (uuid::Uuid, i64, uuid::Uuid, Option<String>) =
            (marker.get(0), marker.get(1), marker.get(2), marker.get(3));
        let limit = i64::try_from(batch).unwrap_or(i64::MAX);
        let removed = tx
            .execute(
                "DELETE FROM chunks WHERE (doc_id, generation, n) IN (
                    SELECT doc_id, generation, n FROM chunks
                    WHERE doc_id = $1 AND ($2::bigint = -1 OR generation = $2)
                    LIMIT $3 FOR UPDATE SKIP LOCKED)",
                &[&doc, &generation, &limit],
            )
            .await
            .map_err(db)?;
        if removed == 0 {
            // The index drops the entries too (hits on them already count
            // for nothing: the reads check the searchable generation).
            let change = IndexChange::RemoveGeneration {
                doc_id: DocumentId(doc),
                generation: (generation != WHOLE_DOCUMENT).then_some(generation as u64),
            };
            log_changes(&tx, &[change]).await?;
            if let Some(sha256) = &sha256 {
                blobs::release(&tx, OrgId(org), &knowledge_file(sha256)).await?;
            }
            tx.execute(
                "DELETE FROM knowledge_purges WHERE doc_id = $1 AND generation = $2",
                &[&doc, &generation],
            )
            .await
            .map_err(db)?;
        }
        tx.commit().await.map_err(db)?;
        Ok(usize::try_from(removed).unwrap_or(usize::MAX).max(1))
    }
}
