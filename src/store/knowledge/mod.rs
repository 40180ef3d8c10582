//! Knowledge documents in the store (`knowledge.md` §1–2): the documents,
//! their indexes, their chunks by generation, the ingestion jobs, the
//! reference counts of the stored files, and the purge markers.
//!
//! | tree                  | key                                        | value           |
//! |-----------------------|--------------------------------------------|-----------------|
//! | `documents`           | org ++ doc (UUIDv7: creation order)        | `Document`      |
//! | `documents_by_scope`  | org ++ scope (17 B) ++ doc                 | empty           |
//! | `document_hashes`     | org ++ scope (17 B) ++ SHA-256 (32 B)      | doc             |
//! | `knowledge_file_refs` | org ++ SHA-256 (32 B)                      | u64 BE, documents using the file |
//! | `knowledge_jobs`      | doc                                        | `IngestJob`     |
//! | `chunks`              | doc ++ generation BE ++ n BE (u32)         | `Chunk`         |
//! | `knowledge_purges`    | doc ++ generation BE (`u64::MAX`: all)     | `KnowledgePurge`|
//! | `knowledge_changes`   | seq u64 BE (see [`changes`])               | `IndexChange`   |
//!
//! Memories have their own trees ([`memories`]), embeddings theirs
//! ([`vectors`]).
//!
//! A document's chunks count only in its `searchable_generation`: an
//! attempt writes a new generation beside the old, and one transaction
//! makes it the searchable one, marks the document `ready` and queues the
//! old one's purge. A delete drops the document and its indexes in one
//! transaction and leaves a purge marker; the purge (batches of
//! [`super::purge::PURGE_BATCH`]) removes the chunks, then the file once
//! no document uses it, then the marker, resuming after a restart.

use chrono::{DateTime, Utc};
use confer_actors::{DocumentId, OrgId, StoreError};
use serde::{Deserialize, Serialize};
use sled::Transactional;

use super::codec::{decode, encode};
use super::{SledStore, abort, engine, tx_error};
use crate::knowledge::files::KnowledgeFiles;
use crate::knowledge::{Chunk, Document, DocumentStatus, IngestJob, JobKind, Scope};

pub mod changes;
pub mod collect;
mod jobs;
pub mod memories;
mod purge;
pub mod vectors;

/// The generation of a purge marker that removes the whole document.
pub(super) const WHOLE_DOCUMENT: u64 = u64::MAX;

/// Attempts before a retryable failure fails the document.
pub const MAX_ATTEMPTS: u32 = 3;

/// The knowledge trees.
pub struct KnowledgeTrees {
    pub(super) documents: sled::Tree,
    pub(super) by_scope: sled::Tree,
    pub(super) hashes: sled::Tree,
    pub(super) file_refs: sled::Tree,
    pub(super) jobs: sled::Tree,
    pub(super) chunks: sled::Tree,
    pub(super) purges: sled::Tree,
    pub(super) changes: sled::Tree,
    pub(super) memories: memories::MemoryTrees,
    /// Memory collections to run, by thread and turn.
    pub(super) collect_jobs: sled::Tree,
    /// The data directory: the files are under `knowledge/files/` (what
    /// `confer migrate` copies into `blobs`).
    pub(super) data_dir: std::path::PathBuf,
    /// Held while the change log is appended to or read.
    pub(super) changes_lock: std::sync::Mutex<()>,
    /// Held while a file is kept for a new document and while a purge
    /// releases one, so a file is never removed under a document that has
    /// just taken it.
    pub(super) file_lock: std::sync::Mutex<()>,
}

impl KnowledgeTrees {
    /// Opens (or creates) the trees in `db`, the store of `data_dir`.
    pub fn open(db: &sled::Db, data_dir: &std::path::Path) -> Result<Self, StoreError> {
        let tree = |name: &str| db.open_tree(name).map_err(engine);
        Ok(Self {
            documents: tree("documents")?,
            by_scope: tree("documents_by_scope")?,
            hashes: tree("document_hashes")?,
            file_refs: tree("knowledge_file_refs")?,
            jobs: tree("knowledge_jobs")?,
            chunks: tree("chunks")?,
            purges: tree("knowledge_purges")?,
            changes: tree("knowledge_changes")?,
            memories: memories::MemoryTrees::open(db)?,
            collect_jobs: tree("memory_collect_jobs")?,
            data_dir: data_dir.to_owned(),
            changes_lock: std::sync::Mutex::new(()),
            file_lock: std::sync::Mutex::new(()),
        })
    }
}

/// A purge still to do.
#[derive(Serialize, Deserialize)]
pub struct KnowledgePurge {
    pub(super) org_id: OrgId,
    /// The file to release (whole-document purges only).
    pub(super) sha256: Option<String>,
}

/// The outcome of an upload's store write.
#[derive(Debug)]
pub enum DocumentCreated {
    /// New, with its job.
    Stored(Box<Document>),
    /// The scope already has this content (a failed one is queued again).
    Duplicate(Box<Document>),
    /// A count limit: the detail names it.
    OverLimit(String),
}

/// The outcome of a reindex request.
#[derive(Debug)]
pub enum Reindexed {
    Queued(Box<Document>),
    /// A job already runs or waits.
    Busy,
    Gone,
}

pub(super) fn doc_key(org: OrgId, id: DocumentId) -> Vec<u8> {
    [org.as_bytes().as_slice(), id.as_bytes()].concat()
}

pub(super) fn scope_key(org: OrgId, scope: &Scope, id: DocumentId) -> Vec<u8> {
    [org.as_bytes().as_slice(), &scope.key(org), id.as_bytes()].concat()
}

pub(super) fn hash_key(org: OrgId, scope: &Scope, sha256: &str) -> Result<Vec<u8>, StoreError> {
    let digest = hex::decode(sha256).map_err(|_| StoreError::Codec("document sha256".into()))?;
    Ok([org.as_bytes().as_slice(), &scope.key(org), &digest].concat())
}

pub(super) fn file_key(org: OrgId, sha256: &str) -> Result<Vec<u8>, StoreError> {
    let digest = hex::decode(sha256).map_err(|_| StoreError::Codec("document sha256".into()))?;
    Ok([org.as_bytes().as_slice(), &digest].concat())
}

pub(super) fn chunk_prefix(id: DocumentId, generation: u64) -> Vec<u8> {
    [id.as_bytes().as_slice(), &generation.to_be_bytes()].concat()
}

pub(crate) fn new_job(document: &Document, kind: JobKind, now: DateTime<Utc>) -> IngestJob {
    IngestJob {
        doc_id: document.id,
        org_id: document.org_id,
        kind,
        attempt: 0,
        lease_until: None,
        next_attempt_at: now,
        error: None,
    }
}

pub(super) fn count(bytes: Option<&[u8]>) -> u64 {
    bytes
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map_or(0, u64::from_be_bytes)
}

impl SledStore {
    /// Stores a new document and its job in one transaction, unless its
    /// scope already has the same content (then that document, queued
    /// again if it had failed) or a count limit is reached.
    /// `upload` is the received file: kept under the document's hash
    /// (made durable) before the transaction, removed otherwise.
    pub fn create_document(
        &self,
        document: Document,
        upload: &std::path::Path,
        files: &KnowledgeFiles,
        limits: (usize, usize),
    ) -> Result<DocumentCreated, StoreError> {
        let created = self.create_document_locked(document, upload, files, limits);
        // Kept or refused, the upload is gone from the scratch directory.
        let _ = std::fs::remove_file(upload);
        created
    }

    fn create_document_locked(
        &self,
        document: Document,
        upload: &std::path::Path,
        files: &KnowledgeFiles,
        (max_per_org, max_per_thread): (usize, usize),
    ) -> Result<DocumentCreated, StoreError> {
        let _writing = self.gate.writing();
        let k = &self.knowledge;
        let _files = k
            .file_lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let org = document.org_id;
        let hash = hash_key(org, &document.scope, &document.sha256)?;
        if let Some(existing) = k.hashes.get(&hash).map_err(engine)? {
            let id = DocumentId::from_bytes(
                existing
                    .as_ref()
                    .try_into()
                    .map_err(|_| StoreError::Codec("document hash".into()))?,
            );
            if let Some(found) = self.requeue_failed(org, id)? {
                return Ok(DocumentCreated::Duplicate(Box::new(found)));
            }
        }
        if k.documents.scan_prefix(org.as_bytes()).count() >= max_per_org {
            return Ok(DocumentCreated::OverLimit(format!(
                "the org has {max_per_org} documents (knowledge_max_docs_per_org)"
            )));
        }
        if let Scope::Thread(_) = document.scope {
            let prefix = [org.as_bytes().as_slice(), &document.scope.key(org)].concat();
            if k.by_scope.scan_prefix(&prefix).count() >= max_per_thread {
                return Ok(DocumentCreated::OverLimit(format!(
                    "the thread has {max_per_thread} documents (knowledge_max_docs_per_thread)"
                )));
            }
        }
        files
            .keep(upload, org, &document.sha256)
            .map_err(|e| StoreError::Engine(format!("keeping a knowledge file: {e}")))?;
        let job = new_job(&document, JobKind::Ingest, document.created_at);
        let key = doc_key(org, document.id);
        let file = file_key(org, &document.sha256)?;
        let raced = (&k.documents, &k.by_scope, &k.hashes, &k.file_refs, &k.jobs)
            .transaction(|(documents, by_scope, hashes, file_refs, jobs)| {
                if let Some(existing) = hashes.get(&hash)? {
                    return Ok(Some(existing));
                }
                documents.insert(key.as_slice(), encode(&document).map_err(abort)?)?;
                by_scope.insert(scope_key(org, &document.scope, document.id), &[])?;
                hashes.insert(hash.as_slice(), document.id.as_bytes())?;
                let refs = count(file_refs.get(&file)?.as_deref()) + 1;
                file_refs.insert(file.as_slice(), &refs.to_be_bytes())?;
                jobs.insert(document.id.as_bytes(), encode(&job).map_err(abort)?)?;
                Ok(None)
            })
            .map_err(tx_error)?;
        match raced {
            None => Ok(DocumentCreated::Stored(Box::new(document))),
            // Another upload of the same content won the race: answer it.
            Some(existing) => {
                let id = DocumentId::from_bytes(
                    existing
                        .as_ref()
                        .try_into()
                        .map_err(|_| StoreError::Codec("document hash".into()))?,
                );
                let found = self
                    .document(org, id)?
                    .ok_or(StoreError::Codec("document hash".into()))?;
                Ok(DocumentCreated::Duplicate(Box::new(found)))
            }
        }
    }

    /// The document `id`, queued again with a new job when it had failed.
    fn requeue_failed(&self, org: OrgId, id: DocumentId) -> Result<Option<Document>, StoreError> {
        let Some(found) = self.document(org, id)? else {
            return Ok(None);
        };
        if found.status != DocumentStatus::Failed {
            return Ok(Some(found));
        }
        match self.reindex_document(org, id, JobKind::Ingest)? {
            Reindexed::Queued(document) => Ok(Some(*document)),
            Reindexed::Busy => self.document(org, id),
            Reindexed::Gone => Ok(None),
        }
    }

    /// The document `id` of `org`.
    pub fn document(&self, org: OrgId, id: DocumentId) -> Result<Option<Document>, StoreError> {
        Self::get(&self.knowledge.documents, &doc_key(org, id))
    }

    /// A page of `org`'s documents, newest first, strictly older than
    /// `before`; with the cursor of the next page.
    pub fn documents(
        &self,
        org: OrgId,
        scope: Option<Scope>,
        status: Option<DocumentStatus>,
        before: Option<DocumentId>,
        limit: usize,
    ) -> Result<(Vec<Document>, Option<DocumentId>), StoreError> {
        let k = &self.knowledge;
        let prefix = match &scope {
            Some(scope) => [org.as_bytes().as_slice(), &scope.key(org)].concat(),
            None => org.as_bytes().to_vec(),
        };
        let tree = if scope.is_some() {
            &k.by_scope
        } else {
            &k.documents
        };
        let mut upper = prefix.clone();
        match before {
            Some(id) => upper.extend_from_slice(id.as_bytes()),
            None => upper.extend_from_slice(&[0xff; 17]),
        }
        let mut page = Vec::new();
        let mut next = None;
        for entry in tree.range(prefix.clone()..upper).rev() {
            let (key, _) = entry.map_err(engine)?;
            let id_bytes: [u8; 16] = key[key.len() - 16..]
                .try_into()
                .map_err(|_| StoreError::Codec("document key".into()))?;
            let id = DocumentId::from_bytes(id_bytes);
            let Some(document) = self.document(org, id)? else {
                continue;
            };
            if status.is_some_and(|wanted| wanted != document.status) {
                continue;
            }
            if page.len() == limit {
                next = page.last().map(|d: &Document| d.id);
                break;
            }
            page.push(document);
        }
        Ok((page, next))
    }

    /// Up to `limit` chunks of `document`'s searchable generation after
    /// chunk `after`.
    pub fn chunks_page(
        &self,
        document: &Document,
        after: Option<u32>,
        limit: usize,
    ) -> Result<Vec<Chunk>, StoreError> {
        let Some(generation) = document.searchable_generation else {
            return Ok(Vec::new());
        };
        let prefix = chunk_prefix(document.id, generation);
        let mut start = prefix.clone();
        if let Some(after) = after {
            start.extend_from_slice(&(after.saturating_add(1)).to_be_bytes());
        }
        let mut end = prefix.clone();
        end.extend_from_slice(&[0xff; 5]);
        self.knowledge
            .chunks
            .range(start..end)
            .take(limit)
            .map(|entry| decode(&entry.map_err(engine)?.1))
            .collect()
    }
}
