//! The ingestion jobs in the store: claimed under a lease written before
//! any work, ended by one transaction (ready, queued again, or failed), and
//! recovered at start (`knowledge.md` §2).

use chrono::{DateTime, Utc};
use confer_actors::{DocumentId, OrgId, StoreError};
use sled::Transactional;

use super::{KnowledgePurge, MAX_ATTEMPTS, Reindexed, chunk_prefix, doc_key, new_job};
use crate::knowledge::chunk::ChunkDraft;
use crate::knowledge::{Document, DocumentStatus, IngestJob, JobKind};
use crate::store::codec::{decode, encode};
use crate::store::{SledStore, abort, engine, tx_error};

impl SledStore {
    /// Claims the oldest due job: its lease and `attempt + 1` (and the
    /// document's `parsing` and `attempts`) are written in one transaction
    /// before any work; the caller flushes before working.
    pub fn claim_job(
        &self,
        now: DateTime<Utc>,
        lease: chrono::TimeDelta,
    ) -> Result<Option<(IngestJob, Document)>, StoreError> {
        let _writing = self.gate.writing();
        let k = &self.knowledge;
        let mut due: Option<IngestJob> = None;
        for entry in k.jobs.iter().values() {
            let job: IngestJob = decode(&entry.map_err(engine)?)?;
            let free = job.lease_until.is_none_or(|until| until < now);
            if free
                && job.next_attempt_at <= now
                && due
                    .as_ref()
                    .is_none_or(|d| job.next_attempt_at < d.next_attempt_at)
            {
                due = Some(job);
            }
        }
        let Some(mut job) = due else {
            return Ok(None);
        };
        let before = encode(&job)?;
        job.attempt += 1;
        job.lease_until = Some(now + lease);
        let key = doc_key(job.org_id, job.doc_id);
        let claimed = (&k.jobs, &k.documents)
            .transaction(|(jobs, documents)| {
                // Claimed by no one else meanwhile.
                if jobs.get(job.doc_id.as_bytes())?.as_deref() != Some(before.as_slice()) {
                    return Ok(None);
                }
                let Some(bytes) = documents.get(&key)? else {
                    jobs.remove(job.doc_id.as_bytes())?;
                    return Ok(None);
                };
                let mut document: Document = decode(&bytes).map_err(abort)?;
                document.claimed(job.attempt, now);
                documents.insert(key.as_slice(), encode(&document).map_err(abort)?)?;
                jobs.insert(job.doc_id.as_bytes(), encode(&job).map_err(abort)?)?;
                Ok(Some(document))
            })
            .map_err(tx_error)?;
        Ok(claimed.map(|document| (job, document)))
    }

    /// Moves a document being worked on to `status` and opens its next
    /// generation; `None` when it was deleted meanwhile.
    pub fn begin_indexing(&self, org: OrgId, id: DocumentId) -> Result<Option<u64>, StoreError> {
        let _writing = self.gate.writing();
        let outcome = crate::store::update::swap(
            &self.knowledge.documents,
            &doc_key(org, id),
            |bytes| bytes.map(decode::<Document>).transpose(),
            |mut document| {
                document.indexing(Utc::now());
                Ok::<_, StoreError>(document)
            },
        )?;
        Ok(match outcome {
            crate::store::update::Updated::Stored(document) => Some(document.last_generation),
            _ => None,
        })
    }

    /// Writes the chunks of `generation` (not searchable until
    /// [`SledStore::finish_ingest`]).
    pub fn put_chunks(
        &self,
        id: DocumentId,
        generation: u64,
        drafts: &[ChunkDraft],
    ) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        let prefix = chunk_prefix(id, generation);
        for batch in drafts.chunks(crate::store::purge::PURGE_BATCH) {
            let mut writes = sled::Batch::default();
            for draft in batch {
                let chunk = draft.chunk_of(id, generation);
                let key = [prefix.as_slice(), &draft.n.to_be_bytes()].concat();
                writes.insert(key, encode(&chunk)?);
            }
            self.knowledge.chunks.apply_batch(writes).map_err(engine)?;
        }
        Ok(())
    }

    /// Makes `generation` the searchable one: the document `ready` with its
    /// counts, its job gone, the previous generation's purge queued, in one
    /// transaction. A document deleted meanwhile gets its new chunks purged
    /// instead (false).
    pub fn finish_ingest(
        &self,
        org: OrgId,
        id: DocumentId,
        generation: u64,
        chunk_count: u64,
        pages: Option<u32>,
    ) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let k = &self.knowledge;
        let key = doc_key(org, id);
        let marker = encode(&KnowledgePurge {
            org_id: org,
            sha256: None,
        })?;
        let finished = (&k.documents, &k.jobs, &k.purges)
            .transaction(|(documents, jobs, purges)| {
                jobs.remove(id.as_bytes())?;
                let Some(bytes) = documents.get(&key)? else {
                    purges.insert(chunk_prefix(id, generation), marker.as_slice())?;
                    return Ok(false);
                };
                let mut document: Document = decode(&bytes).map_err(abort)?;
                if let Some(old) = document
                    .searchable_generation
                    .filter(|old| *old != generation)
                {
                    purges.insert(chunk_prefix(id, old), marker.as_slice())?;
                }
                document.ready(generation, (chunk_count, pages), Utc::now());
                documents.insert(key.as_slice(), encode(&document).map_err(abort)?)?;
                Ok(true)
            })
            .map_err(tx_error)?;
        Ok(finished)
    }

    /// Ends an attempt that failed: queued again at `retry_at`, or (`None`)
    /// the document `failed` and its job gone. Chunks the attempt wrote
    /// (`generation`) are purged. Returns the document as stored.
    pub fn fail_attempt(
        &self,
        job: &IngestJob,
        reason: &str,
        retry_at: Option<DateTime<Utc>>,
        generation: Option<u64>,
    ) -> Result<Option<Document>, StoreError> {
        let _writing = self.gate.writing();
        let k = &self.knowledge;
        let key = doc_key(job.org_id, job.doc_id);
        let marker = encode(&KnowledgePurge {
            org_id: job.org_id,
            sha256: None,
        })?;
        let stored = (&k.documents, &k.jobs, &k.purges)
            .transaction(|(documents, jobs, purges)| {
                if let Some(generation) = generation {
                    purges.insert(chunk_prefix(job.doc_id, generation), marker.as_slice())?;
                }
                let Some(bytes) = documents.get(&key)? else {
                    jobs.remove(job.doc_id.as_bytes())?;
                    return Ok(None);
                };
                let mut document: Document = decode(&bytes).map_err(abort)?;
                document.error = Some(reason.to_owned());
                document.updated_at = Utc::now();
                match retry_at {
                    Some(at) => {
                        let mut again = job.clone();
                        again.lease_until = None;
                        again.next_attempt_at = at;
                        again.error = Some(reason.to_owned());
                        document.status = DocumentStatus::Queued;
                        jobs.insert(job.doc_id.as_bytes(), encode(&again).map_err(abort)?)?;
                    }
                    None => {
                        document.status = DocumentStatus::Failed;
                        jobs.remove(job.doc_id.as_bytes())?;
                    }
                }
                documents.insert(key.as_slice(), encode(&document).map_err(abort)?)?;
                Ok(Some(document))
            })
            .map_err(tx_error)?;
        Ok(stored)
    }

    /// At start: every leased job was cut short by the restart. It is
    /// queued again (`interrupted by a restart (attempt n of 3)`), or
    /// failed after the last attempt; none stays `parsing` or `indexing`.
    /// Returns how many were found.
    pub fn recover_jobs(&self) -> Result<usize, StoreError> {
        let mut leased = Vec::new();
        for entry in self.knowledge.jobs.iter().values() {
            let job: IngestJob = decode(&entry.map_err(engine)?)?;
            if job.lease_until.is_some() {
                leased.push(job);
            }
        }
        for job in &leased {
            let reason = format!(
                "interrupted by a restart (attempt {} of {MAX_ATTEMPTS})",
                job.attempt
            );
            let retry = (job.attempt < MAX_ATTEMPTS).then(Utc::now);
            // The attempt's chunks, if it wrote any, are its last generation.
            let generation = self
                .document(job.org_id, job.doc_id)?
                .filter(|d| {
                    d.status == DocumentStatus::Indexing
                        && Some(d.last_generation) != d.searchable_generation
                })
                .map(|d| d.last_generation);
            self.fail_attempt(job, &reason, retry, generation)?;
        }
        Ok(leased.len())
    }

    /// Every pending ingestion job (what `confer migrate` queues again).
    pub fn ingest_jobs(&self) -> Result<Vec<IngestJob>, StoreError> {
        self.knowledge
            .jobs
            .iter()
            .values()
            .map(|value| decode(&value.map_err(engine)?))
            .collect()
    }

    /// Queues a new job for a document that has none.
    pub fn reindex_document(
        &self,
        org: OrgId,
        id: DocumentId,
        kind: JobKind,
    ) -> Result<Reindexed, StoreError> {
        let _writing = self.gate.writing();
        let k = &self.knowledge;
        let key = doc_key(org, id);
        (&k.documents, &k.jobs)
            .transaction(|(documents, jobs)| {
                let Some(bytes) = documents.get(&key)? else {
                    return Ok(Reindexed::Gone);
                };
                if jobs.get(id.as_bytes())?.is_some() {
                    return Ok(Reindexed::Busy);
                }
                let mut document: Document = decode(&bytes).map_err(abort)?;
                let now = Utc::now();
                document.queued_again(now);
                documents.insert(key.as_slice(), encode(&document).map_err(abort)?)?;
                jobs.insert(
                    id.as_bytes(),
                    encode(&new_job(&document, kind, now)).map_err(abort)?,
                )?;
                Ok(Reindexed::Queued(Box::new(document)))
            })
            .map_err(tx_error)
    }
}
