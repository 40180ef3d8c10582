//! The port of knowledge documents (`knowledge.md` §1–2) on either
//! store: the documents, their chunks by generation, their ingestion jobs,
//! their purge, their files, and what the search index reads of them.
//! The ingestion worker, the API and the search go through it; each
//! node's tantivy index is a cache of these rows (`scale.md` §5).

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use confer_actors::{DocumentId, OrgId, StoreError, StoreFuture};

use super::SledRecords;
use crate::knowledge::chunk::ChunkDraft;
use crate::knowledge::files::KnowledgeFiles;
use crate::knowledge::{Chunk, Document, DocumentStatus, IngestJob, JobKind, Scope};
use crate::store::knowledge::changes::{IndexChange, SearchableGeneration};
use crate::store::knowledge::{DocumentCreated, Reindexed};

/// Which documents a page lists.
#[derive(Clone, Copy, Debug, Default)]
pub struct DocumentFilter {
    /// Only this scope's (the org's every document when `None`).
    pub scope: Option<Scope>,
    pub status: Option<DocumentStatus>,
}

/// A stored file where a parser can read it.
pub struct FileToParse {
    pub path: PathBuf,
    /// A copy made for this parse (removed after it), not the kept file.
    pub scratch: bool,
}

/// A chunk a search hit names: document, generation, place.
pub type ChunkPlace = (DocumentId, u64, u32);

/// Documents, chunks, ingestion jobs and their files.
pub trait DocumentRecords: Send + Sync + 'static {
    /// Stores a new document with its job and its file (the received
    /// `upload`, gone from the scratch directory after), unless its scope
    /// already has the same content (then that document, queued again if
    /// it had failed) or a count limit is reached (`limits`: per org, per
    /// thread).
    fn create_document(
        &self,
        document: Document,
        upload: PathBuf,
        files: KnowledgeFiles,
        limits: (usize, usize),
    ) -> StoreFuture<DocumentCreated>;

    /// The document `id` of `org`.
    fn document(&self, org: OrgId, id: DocumentId) -> StoreFuture<Option<Document>>;

    /// A page of `org`'s documents under `filter`, newest first, strictly
    /// older than `before`; with the cursor of the next page.
    fn documents(
        &self,
        org: OrgId,
        filter: DocumentFilter,
        before: Option<DocumentId>,
        limit: usize,
    ) -> StoreFuture<(Vec<Document>, Option<DocumentId>)>;

    /// Up to `limit` chunks of `document`'s searchable generation after
    /// chunk `after`.
    fn chunks_page(
        &self,
        document: Document,
        after: Option<u32>,
        limit: usize,
    ) -> StoreFuture<Vec<Chunk>>;

    /// The bytes of `org`'s file `sha256`.
    fn read_file(&self, org: OrgId, sha256: String, files: KnowledgeFiles) -> StoreFuture<Vec<u8>>;

    /// `org`'s file `sha256` where a parser can read it.
    fn file_to_parse(
        &self,
        org: OrgId,
        sha256: String,
        files: KnowledgeFiles,
    ) -> StoreFuture<FileToParse>;

    /// Queues a new job for a document that has none.
    fn reindex_document(&self, org: OrgId, id: DocumentId, kind: JobKind)
    -> StoreFuture<Reindexed>;

    /// Deletes a document at once (404 and no chunk counted from now on)
    /// and queues its purge; false if there was none.
    fn delete_document(&self, org: OrgId, id: DocumentId) -> StoreFuture<bool>;

    /// Deletes every document of `scope`; how many.
    fn delete_scope_documents(&self, org: OrgId, scope: Scope) -> StoreFuture<usize>;

    /// Moves a document being worked on to `indexing` and opens its next
    /// generation; `None` when it was deleted meanwhile.
    fn begin_indexing(&self, org: OrgId, id: DocumentId) -> StoreFuture<Option<u64>>;

    /// Writes the chunks of `generation` (not searchable until
    /// [`DocumentRecords::finish_ingest`]).
    fn put_chunks(
        &self,
        id: DocumentId,
        generation: u64,
        drafts: Vec<ChunkDraft>,
    ) -> StoreFuture<()>;

    /// Makes `generation` the searchable one: the document `ready` with
    /// its counts, its job gone, the previous generation's purge queued,
    /// at once. A document deleted meanwhile gets its new chunks purged
    /// instead (false).
    fn finish_ingest(
        &self,
        org: OrgId,
        id: DocumentId,
        generation: u64,
        counts: (u64, Option<u32>),
    ) -> StoreFuture<bool>;

    /// Ends an attempt that failed: queued again at `retry_at`, or
    /// (`None`) the document `failed` and its job gone. Chunks the attempt
    /// wrote (`generation`) are purged. The document as stored.
    fn fail_attempt(
        &self,
        job: IngestJob,
        reason: String,
        retry_at: Option<DateTime<Utc>>,
        generation: Option<u64>,
    ) -> StoreFuture<Option<Document>>;

    /// One step of the purge: up to `batch` chunks of one marker's
    /// document (or generation); when none is left, the file (once no
    /// document uses it) and the marker. How much it did (0: nothing
    /// pending).
    fn knowledge_purge_step(&self, files: KnowledgeFiles, batch: usize) -> StoreFuture<usize>;

    /// Logs `change` on the index's feed; its sequence number.
    fn log_index_change(&self, change: IndexChange) -> StoreFuture<u64>;

    /// Every document's searchable generation (what a rebuilt index holds).
    fn searchable_generations(&self) -> StoreFuture<Vec<SearchableGeneration>>;

    /// The chunks of a generation, in order, with the document's scope
    /// (`None` when the document is gone).
    fn generation_chunks(
        &self,
        org: OrgId,
        id: DocumentId,
        generation: u64,
    ) -> StoreFuture<Option<(Scope, Vec<Chunk>)>>;

    /// Whether a document of `scopes` is searchable.
    fn any_searchable(&self, org: OrgId, scopes: Vec<Scope>) -> StoreFuture<bool>;

    /// The chunks at `places` with their documents, in `places`' order,
    /// each only if its generation is its document's searchable one (a
    /// hit counts for nothing else); at most `limit`.
    fn searchable_chunks(
        &self,
        org: OrgId,
        places: Vec<ChunkPlace>,
        limit: usize,
    ) -> StoreFuture<Vec<(Document, Chunk)>>;
}

impl DocumentRecords for SledRecords {
    fn create_document(
        &self,
        document: Document,
        upload: PathBuf,
        files: KnowledgeFiles,
        limits: (usize, usize),
    ) -> StoreFuture<DocumentCreated> {
        self.write(move |s| s.create_document(document, &upload, &files, limits))
    }

    fn document(&self, org: OrgId, id: DocumentId) -> StoreFuture<Option<Document>> {
        self.read(move |s| s.document(org, id))
    }

    fn documents(
        &self,
        org: OrgId,
        filter: DocumentFilter,
        before: Option<DocumentId>,
        limit: usize,
    ) -> StoreFuture<(Vec<Document>, Option<DocumentId>)> {
        self.read(move |s| s.documents(org, filter.scope, filter.status, before, limit))
    }

    fn chunks_page(
        &self,
        document: Document,
        after: Option<u32>,
        limit: usize,
    ) -> StoreFuture<Vec<Chunk>> {
        self.read(move |s| s.chunks_page(&document, after, limit))
    }

    fn read_file(&self, org: OrgId, sha256: String, files: KnowledgeFiles) -> StoreFuture<Vec<u8>> {
        self.read(move |_| {
            std::fs::read(files.path(org, &sha256))
                .map_err(|e| StoreError::Engine(format!("reading a knowledge file: {}", e.kind())))
        })
    }

    fn file_to_parse(
        &self,
        org: OrgId,
        sha256: String,
        files: KnowledgeFiles,
    ) -> StoreFuture<FileToParse> {
        Box::pin(async move {
            Ok(FileToParse {
                path: files.path(org, &sha256),
                scratch: false,
            })
        })
    }

    fn reindex_document(
        &self,
        org: OrgId,
        id: DocumentId,
        kind: JobKind,
    ) -> StoreFuture<Reindexed> {
        self.write(move |s| s.reindex_document(org, id, kind))
    }

    fn delete_document(&self, org: OrgId, id: DocumentId) -> StoreFuture<bool> {
        self.write(move |s| s.delete_document(org, id))
    }

    fn delete_scope_documents(&self, org: OrgId, scope: Scope) -> StoreFuture<usize> {
        self.write(move |s| s.delete_scope_documents(org, scope))
    }

    fn begin_indexing(&self, org: OrgId, id: DocumentId) -> StoreFuture<Option<u64>> {
        self.write(move |s| s.begin_indexing(org, id))
    }

    fn put_chunks(
        &self,
        id: DocumentId,
        generation: u64,
        drafts: Vec<ChunkDraft>,
    ) -> StoreFuture<()> {
        // Durable with the finish that makes them count (its flush).
        self.read(move |s| s.put_chunks(id, generation, &drafts))
    }

    fn finish_ingest(
        &self,
        org: OrgId,
        id: DocumentId,
        generation: u64,
        (count, pages): (u64, Option<u32>),
    ) -> StoreFuture<bool> {
        self.write(move |s| s.finish_ingest(org, id, generation, count, pages))
    }

    fn fail_attempt(
        &self,
        job: IngestJob,
        reason: String,
        retry_at: Option<DateTime<Utc>>,
        generation: Option<u64>,
    ) -> StoreFuture<Option<Document>> {
        self.write(move |s| s.fail_attempt(&job, &reason, retry_at, generation))
    }

    fn knowledge_purge_step(&self, files: KnowledgeFiles, batch: usize) -> StoreFuture<usize> {
        self.read(move |s| s.knowledge_purge_step(&files, batch))
    }

    fn log_index_change(&self, change: IndexChange) -> StoreFuture<u64> {
        self.read(move |s| s.log_index_change(&change))
    }

    fn searchable_generations(&self) -> StoreFuture<Vec<SearchableGeneration>> {
        self.read(|s| s.searchable_generations())
    }

    fn generation_chunks(
        &self,
        org: OrgId,
        id: DocumentId,
        generation: u64,
    ) -> StoreFuture<Option<(Scope, Vec<Chunk>)>> {
        self.read(move |s| s.generation_chunks(org, id, generation))
    }

    fn any_searchable(&self, org: OrgId, scopes: Vec<Scope>) -> StoreFuture<bool> {
        self.read(move |s| s.any_searchable(org, &scopes))
    }

    fn searchable_chunks(
        &self,
        org: OrgId,
        places: Vec<ChunkPlace>,
        limit: usize,
    ) -> StoreFuture<Vec<(Document, Chunk)>> {
        self.read(move |s| {
            let mut found = Vec::with_capacity(limit.min(places.len()));
            for (doc, generation, n) in places {
                if found.len() == limit {
                    break;
                }
                found.extend(s.searchable_chunk(org, doc, generation, n)?);
            }
            Ok(found)
        })
    }
}
