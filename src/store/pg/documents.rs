//! Knowledge documents on PostgreSQL (`knowledge.md` §1–2): a document
//! row, its file in `blobs`, and its ingestion job in `jobs` (kind
//! `ingest_document`, slot the document's id), written in one
//! transaction; an org's documents are counted under an advisory lock of
//! the org. A delete removes the row and its job and leaves a purge
//! marker ([`super::ingestion`] runs the purge).

use std::path::PathBuf;

use chrono::Utc;
use confer_actors::{DocumentId, OrgId, StoreError, StoreFuture};
use tokio_postgres::GenericClient;

use super::blobs::{self, knowledge_file};
use super::records::{PgStore, V, body, db, hold_lock, record};
use crate::cluster::Shard;
use crate::cluster::jobs::{self, JobKind as StoredJob, NewJob};
use crate::knowledge::files::KnowledgeFiles;
use crate::knowledge::{Chunk, Document, DocumentStatus, IngestJob, JobKind, Scope};
use crate::store::knowledge::{DocumentCreated, Reindexed, new_job};
use crate::store::port::{DocumentFilter, FileToParse};

/// The advisory lock (`pg_advisory_xact_lock(DOCUMENT_COUNT_LOCK, org)`)
/// under which an org's documents are counted.
const DOCUMENT_COUNT_LOCK: i32 = 19;

/// The `kind` of an ingestion job in `jobs`.
pub(super) const INGEST: &str = "ingest_document";

/// Deletes the documents the condition picks (`$1` the org, `$2` the
/// scope key or the id), their jobs, and leaves each a purge marker.
macro_rules! delete_where {
    ($condition:literal) => {
        concat!(
            "WITH gone AS (DELETE FROM documents WHERE org_id = $1 AND ",
            $condition,
            " RETURNING id, sha256),
             jobs_gone AS (DELETE FROM jobs WHERE kind = 'ingest_document'
                AND slot IN (SELECT id::text FROM gone))
             INSERT INTO knowledge_purges (doc_id, generation, org_id, sha256)
             SELECT id, -1, $1, sha256 FROM gone ON CONFLICT DO NOTHING"
        )
    };
}

/// A status as the body spells it.
fn status_text(status: DocumentStatus) -> &'static str {
    match status {
        DocumentStatus::Queued => "queued",
        DocumentStatus::Parsing => "parsing",
        DocumentStatus::Indexing => "indexing",
        DocumentStatus::Ready => "ready",
        DocumentStatus::Failed => "failed",
    }
}

/// The stored job of `job`, due at its `next_attempt_at`.
pub(super) fn ingest_job(job: &IngestJob) -> Result<NewJob, StoreError> {
    Ok(NewJob {
        kind: StoredJob::IngestDocument,
        shard: Shard::of_id(job.doc_id.0),
        slot: job.doc_id.to_string(),
        due_at: job.next_attempt_at,
        body: serde_json::to_value(job).map_err(|e| StoreError::Codec(e.to_string()))?,
    })
}

/// The document `id` read in `client`, locked for the rest of its
/// transaction.
pub(super) async fn document_for_update(
    client: &impl GenericClient,
    org: OrgId,
    id: DocumentId,
) -> Result<Option<Document>, StoreError> {
    let row = client
        .query_opt(
            "SELECT v, body FROM documents WHERE org_id = $1 AND id = $2 FOR UPDATE",
            &[&org.0, &id.0],
        )
        .await
        .map_err(db)?;
    row.map(|row| record(&row)).transpose()
}

/// Writes `document` back over its row.
pub(super) async fn put_document(
    client: &impl GenericClient,
    document: &Document,
) -> Result<(), StoreError> {
    client
        .execute(
            "UPDATE documents SET v = $3, body = $4 WHERE org_id = $1 AND id = $2",
            &[&document.org_id.0, &document.id.0, &V, &body(document)],
        )
        .await
        .map_err(db)?;
    Ok(())
}

/// Queues a new job for the document `id` unless it has one.
async fn requeue(
    client: &impl GenericClient,
    org: OrgId,
    id: DocumentId,
    kind: JobKind,
) -> Result<Reindexed, StoreError> {
    let Some(mut document) = document_for_update(client, org, id).await? else {
        return Ok(Reindexed::Gone);
    };
    let busy = client
        .query_opt(
            "SELECT 1 FROM jobs WHERE kind = $1 AND slot = $2",
            &[&INGEST, &id.to_string()],
        )
        .await
        .map_err(db)?;
    if busy.is_some() {
        return Ok(Reindexed::Busy);
    }
    let now = Utc::now();
    document.queued_again(now);
    put_document(client, &document).await?;
    jobs::enqueue(client, &ingest_job(&new_job(&document, kind, now))?)
        .await
        .map_err(super::records::store_error)?;
    Ok(Reindexed::Queued(Box::new(document)))
}

impl PgStore {
    pub(super) async fn store_document(
        &self,
        document: Document,
        upload: &std::path::Path,
        (max_per_org, max_per_thread): (usize, usize),
    ) -> Result<DocumentCreated, StoreError> {
        let org = document.org_id;
        let scope = document.scope.key(org).to_vec();
        let mut session = self.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        hold_lock(&tx, DOCUMENT_COUNT_LOCK, org.0).await?;
        let same = tx
            .query_opt(
                "SELECT id FROM documents WHERE org_id = $1 AND scope_key = $2 AND sha256 = $3",
                &[&org.0, &scope, &document.sha256],
            )
            .await
            .map_err(db)?;
        if let Some(row) = same {
            let id = DocumentId(row.get(0));
            let mut found = document_for_update(&tx, org, id)
                .await?
                .ok_or(StoreError::Codec("document hash".into()))?;
            if found.status == DocumentStatus::Failed
                && let Reindexed::Queued(queued) = requeue(&tx, org, id, JobKind::Ingest).await?
            {
                found = *queued;
            }
            tx.commit().await.map_err(db)?;
            return Ok(DocumentCreated::Duplicate(Box::new(found)));
        }
        let counts = tx
            .query_one(
                "SELECT count(*), count(*) FILTER (WHERE scope_key = $2) FROM documents
                 WHERE org_id = $1",
                &[&org.0, &scope],
            )
            .await
            .map_err(db)?;
        let (in_org, in_scope): (i64, i64) = (counts.get(0), counts.get(1));
        if in_org as u64 >= max_per_org as u64 {
            return Ok(DocumentCreated::OverLimit(format!(
                "the org has {max_per_org} documents (knowledge_max_docs_per_org)"
            )));
        }
        if matches!(document.scope, Scope::Thread(_)) && in_scope as u64 >= max_per_thread as u64 {
            return Ok(DocumentCreated::OverLimit(format!(
                "the thread has {max_per_thread} documents (knowledge_max_docs_per_thread)"
            )));
        }
        tx.execute(
            "INSERT INTO documents (org_id, id, scope_key, sha256, v, body)
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[
                &org.0,
                &document.id.0,
                &scope,
                &document.sha256,
                &V,
                &body(&document),
            ],
        )
        .await
        .map_err(db)?;
        blobs::keep(&tx, org, &knowledge_file(&document.sha256), upload).await?;
        let job = new_job(&document, JobKind::Ingest, document.created_at);
        jobs::enqueue(&tx, &ingest_job(&job)?)
            .await
            .map_err(super::records::store_error)?;
        tx.commit().await.map_err(db)?;
        Ok(DocumentCreated::Stored(Box::new(document)))
    }
}

/// The port's document reads and writes; the ingestion's are in
/// [`super::ingestion`].
impl PgStore {
    pub(super) fn create_document_on_pg(
        &self,
        document: Document,
        upload: PathBuf,
        limits: (usize, usize),
    ) -> StoreFuture<DocumentCreated> {
        let store = self.clone();
        Box::pin(async move {
            let created = store.store_document(document, &upload, limits).await;
            // Kept or refused, the upload is gone from the scratch directory.
            let _ = tokio::fs::remove_file(&upload).await;
            created
        })
    }

    pub(super) fn document_on_pg(
        &self,
        org: OrgId,
        id: DocumentId,
    ) -> StoreFuture<Option<Document>> {
        let store = self.clone();
        Box::pin(async move {
            store
                .one(
                    "SELECT v, body FROM documents WHERE org_id = $1 AND id = $2",
                    &[&org.0, &id.0],
                )
                .await
        })
    }

    pub(super) fn documents_on_pg(
        &self,
        org: OrgId,
        filter: DocumentFilter,
        before: Option<DocumentId>,
        limit: usize,
    ) -> StoreFuture<(Vec<Document>, Option<DocumentId>)> {
        let store = self.clone();
        Box::pin(async move {
            let scope = filter.scope.map(|s| s.key(org).to_vec());
            let status = filter.status.map(status_text);
            let fetch = i64::try_from(limit).unwrap_or(i64::MAX - 1) + 1;
            let mut page: Vec<Document> = store
                .all(
                    "SELECT v, body FROM documents
                     WHERE org_id = $1 AND ($2::bytea IS NULL OR scope_key = $2)
                       AND ($3::uuid IS NULL OR id < $3)
                       AND ($4::text IS NULL OR body->>'status' = $4)
                     ORDER BY id DESC LIMIT $5",
                    &[&org.0, &scope, &before.map(|b| b.0), &status, &fetch],
                )
                .await?;
            let next = match page.len() > limit {
                true => {
                    page.truncate(limit);
                    page.last().map(|d| d.id)
                }
                false => None,
            };
            Ok((page, next))
        })
    }

    pub(super) fn chunks_page_on_pg(
        &self,
        document: Document,
        after: Option<u32>,
        limit: usize,
    ) -> StoreFuture<Vec<Chunk>> {
        let store = self.clone();
        Box::pin(async move {
            let Some(generation) = document.searchable_generation else {
                return Ok(Vec::new());
            };
            let after = after.map_or(-1, |n| i32::try_from(n).unwrap_or(i32::MAX));
            store
                .all(
                    "SELECT v, body FROM chunks WHERE doc_id = $1 AND generation = $2 AND n > $3
                     ORDER BY n LIMIT $4",
                    &[
                        &document.id.0,
                        &(generation as i64),
                        &after,
                        &i64::try_from(limit).unwrap_or(i64::MAX),
                    ],
                )
                .await
        })
    }

    pub(super) fn read_file_on_pg(&self, org: OrgId, sha256: String) -> StoreFuture<Vec<u8>> {
        let store = self.clone();
        Box::pin(async move {
            let session = store.session().await?;
            blobs::read(&session.client, org, &knowledge_file(&sha256))
                .await?
                .ok_or_else(|| StoreError::Engine("a knowledge file is missing".into()))
        })
    }

    pub(super) fn file_to_parse_on_pg(
        &self,
        org: OrgId,
        sha256: String,
        files: KnowledgeFiles,
    ) -> StoreFuture<FileToParse> {
        let read = self.read_file_on_pg(org, sha256);
        Box::pin(async move {
            let bytes = read.await?;
            let path = files
                .scratch()
                .join(format!("parse-{}", uuid::Uuid::new_v4()));
            tokio::fs::write(&path, bytes).await.map_err(|e| {
                StoreError::Engine(format!("copying a file to parse: {}", e.kind()))
            })?;
            Ok(FileToParse {
                path,
                scratch: true,
            })
        })
    }

    pub(super) fn reindex_on_pg(
        &self,
        org: OrgId,
        id: DocumentId,
        kind: JobKind,
    ) -> StoreFuture<Reindexed> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let queued = requeue(&tx, org, id, kind).await?;
            tx.commit().await.map_err(db)?;
            Ok(queued)
        })
    }

    pub(super) fn delete_document_on_pg(&self, org: OrgId, id: DocumentId) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(async move {
            let gone = store
                .execute(delete_where!("id = $2"), &[&org.0, &id.0])
                .await?;
            Ok(gone > 0)
        })
    }

    pub(super) fn delete_scope_on_pg(&self, org: OrgId, scope: Scope) -> StoreFuture<usize> {
        let store = self.clone();
        Box::pin(async move {
            let gone = store.delete_scope_documents_now(org, scope).await?;
            Ok(usize::try_from(gone).unwrap_or(usize::MAX))
        })
    }

    /// Deletes every document of `scope` (a deleted thread's or agent's),
    /// each leaving its purge marker; how many.
    pub(super) async fn delete_scope_documents_now(
        &self,
        org: OrgId,
        scope: Scope,
    ) -> Result<u64, StoreError> {
        let key = scope.key(org).to_vec();
        self.execute(delete_where!("scope_key = $2"), &[&org.0, &key])
            .await
    }
}
