//! [`DocumentRecords`] on PostgreSQL: the documents' side in
//! [`super::documents`], the ingestion's and the index's in
//! [`super::ingestion`].

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use confer_actors::{DocumentId, OrgId, StoreFuture};

use super::records::PgStore;
use crate::knowledge::chunk::ChunkDraft;
use crate::knowledge::files::KnowledgeFiles;
use crate::knowledge::{Chunk, Document, IngestJob, JobKind, Scope};
use crate::store::knowledge::changes::{IndexChange, SearchableGeneration};
use crate::store::knowledge::{DocumentCreated, Reindexed};
use crate::store::port::{ChunkPlace, DocumentFilter, DocumentRecords, FileToParse};

/// `$call` on a clone of the store, as a port future.
macro_rules! on_pg {
    ($store:expr, |$s:ident| $call:expr) => {{
        let $s = $store.clone();
        Box::pin(async move { $call.await })
    }};
}

impl DocumentRecords for PgStore {
    fn create_document(
        &self,
        document: Document,
        upload: PathBuf,
        _files: KnowledgeFiles,
        limits: (usize, usize),
    ) -> StoreFuture<DocumentCreated> {
        self.create_document_on_pg(document, upload, limits)
    }

    fn document(&self, org: OrgId, id: DocumentId) -> StoreFuture<Option<Document>> {
        self.document_on_pg(org, id)
    }

    fn documents(
        &self,
        org: OrgId,
        filter: DocumentFilter,
        before: Option<DocumentId>,
        limit: usize,
    ) -> StoreFuture<(Vec<Document>, Option<DocumentId>)> {
        self.documents_on_pg(org, filter, before, limit)
    }

    fn chunks_page(
        &self,
        document: Document,
        after: Option<u32>,
        limit: usize,
    ) -> StoreFuture<Vec<Chunk>> {
        self.chunks_page_on_pg(document, after, limit)
    }

    fn read_file(
        &self,
        org: OrgId,
        sha256: String,
        _files: KnowledgeFiles,
    ) -> StoreFuture<Vec<u8>> {
        self.read_file_on_pg(org, sha256)
    }

    fn file_to_parse(
        &self,
        org: OrgId,
        sha256: String,
        files: KnowledgeFiles,
    ) -> StoreFuture<FileToParse> {
        self.file_to_parse_on_pg(org, sha256, files)
    }

    fn reindex_document(
        &self,
        org: OrgId,
        id: DocumentId,
        kind: JobKind,
    ) -> StoreFuture<Reindexed> {
        self.reindex_on_pg(org, id, kind)
    }

    fn delete_document(&self, org: OrgId, id: DocumentId) -> StoreFuture<bool> {
        self.delete_document_on_pg(org, id)
    }

    fn delete_scope_documents(&self, org: OrgId, scope: Scope) -> StoreFuture<usize> {
        self.delete_scope_on_pg(org, scope)
    }

    fn begin_indexing(&self, org: OrgId, id: DocumentId) -> StoreFuture<Option<u64>> {
        on_pg!(self, |s| s.begin_indexing_on_pg(org, id))
    }

    fn put_chunks(
        &self,
        id: DocumentId,
        generation: u64,
        drafts: Vec<ChunkDraft>,
    ) -> StoreFuture<()> {
        on_pg!(self, |s| s.put_chunks_on_pg(id, generation, &drafts))
    }

    fn finish_ingest(
        &self,
        org: OrgId,
        id: DocumentId,
        generation: u64,
        counts: (u64, Option<u32>),
    ) -> StoreFuture<bool> {
        on_pg!(self, |s| s.finish_ingest_on_pg(org, id, generation, counts))
    }

    fn fail_attempt(
        &self,
        job: IngestJob,
        reason: String,
        retry_at: Option<DateTime<Utc>>,
        generation: Option<u64>,
    ) -> StoreFuture<Option<Document>> {
        on_pg!(self, |s| s
            .fail_attempt_on_pg(&job, &reason, retry_at, generation))
    }

    fn knowledge_purge_step(&self, _files: KnowledgeFiles, batch: usize) -> StoreFuture<usize> {
        on_pg!(self, |s| s.knowledge_purge_on_pg(batch))
    }

    fn log_index_change(&self, change: IndexChange) -> StoreFuture<u64> {
        on_pg!(self, |s| s.log_index_change_on_pg(&change))
    }

    fn searchable_generations(&self) -> StoreFuture<Vec<SearchableGeneration>> {
        on_pg!(self, |s| s.searchable_generations_on_pg())
    }

    fn generation_chunks(
        &self,
        org: OrgId,
        id: DocumentId,
        generation: u64,
    ) -> StoreFuture<Option<(Scope, Vec<Chunk>)>> {
        on_pg!(self, |s| s.generation_chunks_on_pg(org, id, generation))
    }

    fn any_searchable(&self, org: OrgId, scopes: Vec<Scope>) -> StoreFuture<bool> {
        on_pg!(self, |s| s.any_searchable_on_pg(org, &scopes))
    }

    fn searchable_chunks(
        &self,
        org: OrgId,
        places: Vec<ChunkPlace>,
        limit: usize,
    ) -> StoreFuture<Vec<(Document, Chunk)>> {
        on_pg!(self, |s| s.searchable_chunks_on_pg(org, &places, limit))
    }
}
