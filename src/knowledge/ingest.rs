//! The ingestion worker (`knowledge.md` §2): claims the oldest due job
//! (its lease and attempt flushed before any work), parses the file in a
//! child process, chunks the text, writes the chunks under a new
//! generation and makes it searchable in one transaction. Retryable
//! failures come back after 10 s, then 60 s; the third, or a deterministic
//! one, fails the document. At start, jobs cut short by a restart are
//! requeued or failed before any worker runs. The same service runs the
//! background purge of deleted documents.

use std::sync::{Arc, Weak};
use std::time::Duration;

use chrono::{TimeDelta, Utc};
use confer_actors::{DocumentId, StoreError};
use tokio::sync::{Notify, broadcast};

use super::chunk::chunks;
use super::embed::Embedder;
use super::files::KnowledgeFiles;
use super::filetype::FileType;
use super::index::KnowledgeIndex;
use super::parse::{ChildParser, ParseFailure};
use super::search::KnowledgeSearch;
use super::{Document, IngestJob};
use crate::cluster::serving::Membership;
use crate::settings::Settings;
use crate::store::Store;
use crate::store::knowledge::MAX_ATTEMPTS;
use crate::store::knowledge::changes::IndexChange;
use crate::store::purge::PURGE_BATCH;

/// How the worker is set up (`CONFER_KNOWLEDGE_*`).
#[derive(Clone, Debug)]
pub struct IngestConfig {
    pub workers: usize,
    pub attempt_timeout: Duration,
    pub max_chunks_per_doc: usize,
}

/// The ingestion service: its workers, its purge, and the news of each
/// document whose job ended.
pub struct Ingestion {
    store: Store,
    index: Arc<KnowledgeIndex>,
    embedder: Arc<Embedder>,
    files: KnowledgeFiles,
    parser: ChildParser,
    config: IngestConfig,
    work: Notify,
    purge: Notify,
    ended: broadcast::Sender<DocumentId>,
}

/// When an attempt that failed as `attempt` is tried again (`None`: never).
fn retry_delay(attempt: u32) -> Option<TimeDelta> {
    match attempt {
        1 => Some(TimeDelta::seconds(10)),
        2 => Some(TimeDelta::seconds(60)),
        _ => None,
    }
}

/// How an attempt ended, before it is recorded.
enum Outcome {
    Ready,
    Failed {
        reason: String,
        retryable: bool,
        generation: Option<u64>,
    },
    /// The document was deleted meanwhile.
    Gone,
}

impl Ingestion {
    /// [`Ingestion::start`] as `settings` say, on `{data_dir}/knowledge`.
    pub fn from_settings(
        store: &Store,
        settings: &Settings,
        search: &KnowledgeSearch,
    ) -> anyhow::Result<Arc<Self>> {
        Ok(Self::start(
            store.clone(),
            Arc::clone(search.index()),
            Arc::clone(search.embedder()),
            KnowledgeFiles::open(&settings.data_dir)?,
            ChildParser::from_settings(settings)?,
            IngestConfig {
                workers: settings.knowledge_workers,
                attempt_timeout: Duration::from_secs(settings.knowledge_attempt_timeout_secs),
                max_chunks_per_doc: settings.knowledge_max_chunks_per_doc,
            },
        )?)
    }

    /// Recovers the jobs a restart cut short, then starts the workers and
    /// the purge on the current runtime.
    pub fn start(
        store: Store,
        index: Arc<KnowledgeIndex>,
        embedder: Arc<Embedder>,
        files: KnowledgeFiles,
        parser: ChildParser,
        config: IngestConfig,
    ) -> Result<Arc<Self>, StoreError> {
        // On PostgreSQL a claim that ran out is the cut-short attempt
        // (`claim_ingestion`); the jobs are the shards' owners' (`follow`).
        let on_postgres = store.is_postgres();
        let recovered = match on_postgres {
            true => 0,
            false => store.with_inner(|s| s.recover_jobs())?,
        };
        if recovered > 0 {
            store.flush_now()?;
            tracing::warn!(
                recovered,
                "knowledge jobs interrupted by a restart were requeued"
            );
        }
        let (ended, _) = broadcast::channel(256);
        let service = Arc::new(Self {
            store,
            index,
            embedder,
            files,
            parser,
            config,
            work: Notify::new(),
            purge: Notify::new(),
            ended,
        });
        if !on_postgres {
            for _ in 0..service.config.workers.max(1) {
                tokio::spawn(Arc::clone(&service).work_loop());
            }
        }
        // Any node runs purge steps: each takes its marker SKIP LOCKED.
        tokio::spawn(Arc::clone(&service).purge_loop());
        Ok(service)
    }

    /// On PostgreSQL (`membership`: the node joined): the workers claim
    /// the due jobs of the shards the node owns, until the node is gone.
    pub fn follow(self: &Arc<Self>, membership: Option<&Arc<Membership>>) {
        let Some(membership) = membership.map(Arc::downgrade) else {
            return;
        };
        for _ in 0..self.config.workers.max(1) {
            let service = Arc::clone(self);
            let membership = membership.clone();
            tokio::spawn(async move { service.cluster_loop(membership).await });
        }
    }

    /// How long a claimed attempt is held: its deadline, and more.
    fn lease(&self) -> TimeDelta {
        TimeDelta::from_std(self.config.attempt_timeout).unwrap_or(TimeDelta::minutes(10))
            + TimeDelta::seconds(30)
    }

    async fn cluster_loop(self: Arc<Self>, membership: Weak<Membership>) {
        let Some(pg) = self.store.postgres().cloned() else {
            return;
        };
        loop {
            let Some((me, mine)) = Membership::claimant(&membership) else {
                return;
            };
            let claimed = match mine.is_empty() {
                true => Ok(None),
                false => pg.claim_ingestion(me, &mine, self.lease()).await,
            };
            self.attempt_or_wait(claimed).await;
        }
    }

    /// The stored files.
    pub fn files(&self) -> &KnowledgeFiles {
        &self.files
    }

    /// Tells the workers a job was queued.
    pub fn queued(&self) {
        self.work.notify_waiters();
        self.work.notify_one();
    }

    /// Tells the purge a document was deleted.
    pub fn deleted(&self) {
        self.purge.notify_one();
    }

    /// Each document whose job ends (ready or failed), from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<DocumentId> {
        self.ended.subscribe()
    }

    async fn work_loop(self: Arc<Self>) {
        loop {
            let lease = self.lease();
            let claimed = self
                .store
                .write(move |s| s.claim_job(Utc::now(), lease))
                .await;
            self.attempt_or_wait(claimed).await;
        }
    }

    /// Runs the attempt claimed, or waits for news of a job.
    async fn attempt_or_wait(&self, claimed: Result<Option<(IngestJob, Document)>, StoreError>) {
        match claimed {
            Ok(Some((job, document))) => self.attempt(job, document).await,
            Ok(None) => {
                // A queued job wakes us; a retry falls due on its own.
                let _ = tokio::time::timeout(Duration::from_secs(1), self.work.notified()).await;
            }
            Err(error) => {
                tracing::error!(%error, "claiming a knowledge job failed");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }

    async fn attempt(&self, job: IngestJob, document: Document) {
        let id = document.id;
        let outcome =
            match tokio::time::timeout(self.config.attempt_timeout, self.run(&document)).await {
                Ok(Ok(outcome)) => outcome,
                Ok(Err(error)) => Outcome::Failed {
                    reason: format!("writer error: {error}"),
                    retryable: true,
                    generation: None,
                },
                Err(_) => Outcome::Failed {
                    reason: "attempt timeout".into(),
                    retryable: true,
                    generation: None,
                },
            };
        let recorded = match outcome {
            Outcome::Ready | Outcome::Gone => Ok(()),
            Outcome::Failed {
                reason,
                retryable,
                generation,
            } => {
                let retry_at = retryable
                    .then(|| retry_delay(job.attempt))
                    .flatten()
                    .filter(|_| job.attempt < MAX_ATTEMPTS)
                    .map(|delay| Utc::now() + delay);
                if generation.is_some() {
                    self.purge.notify_one();
                }
                tracing::warn!(doc = %id, attempt = job.attempt, %reason, retried = retry_at.is_some(), "knowledge attempt failed");
                self.store
                    .documents()
                    .fail_attempt(job, reason, retry_at, generation)
                    .await
                    .map(|_| ())
            }
        };
        if let Err(error) = recorded {
            tracing::error!(%error, doc = %id, "recording a knowledge attempt failed");
        }
        let _ = self.ended.send(id);
    }

    /// Parses, chunks and indexes `document`.
    async fn run(&self, document: &Document) -> Result<Outcome, StoreError> {
        let failed = |reason: &str, retryable: bool, generation: Option<u64>| Outcome::Failed {
            reason: reason.to_owned(),
            retryable,
            generation,
        };
        let Some(kind) = FileType::from_content_type(&document.content_type) else {
            return Ok(failed("unsupported type", false, None));
        };
        let file = self
            .store
            .documents()
            .file_to_parse(document.org_id, document.sha256.clone(), self.files.clone())
            .await?;
        // Each phase's time, in the ready line (where ingestion spends it).
        let started = std::time::Instant::now();
        let parsed = self.parser.parse(kind, &file.path).await;
        if file.scratch {
            let _ = tokio::fs::remove_file(&file.path).await;
        }
        let parsed = match parsed {
            Ok(parsed) => parsed,
            Err(ParseFailure::Deterministic(reason)) => return Ok(failed(&reason, false, None)),
            Err(ParseFailure::Retryable(reason)) => return Ok(failed(&reason, true, None)),
        };
        let (org, id) = (document.org_id, document.id);
        let Some(generation) = self.store.documents().begin_indexing(org, id).await? else {
            return Ok(Outcome::Gone);
        };
        let pages = parsed
            .page_starts
            .as_ref()
            .map(|p| u32::try_from(p.len()).unwrap_or(u32::MAX));
        let parse_ms = started.elapsed().as_millis() as u64;
        let drafts = tokio::task::spawn_blocking(move || {
            chunks(&parsed.text, parsed.page_starts.as_deref())
        })
        .await
        .map_err(|e| StoreError::Engine(format!("chunking: {e}")))?;
        if drafts.len() > self.config.max_chunks_per_doc {
            return Ok(failed("too many chunks", false, None));
        }
        if drafts.is_empty() {
            return Ok(failed("no extractable text", false, None));
        }
        let count = drafts.len() as u64;
        let chunk_ms = started.elapsed().as_millis() as u64 - parse_ms;
        if let Err(error) = self
            .store
            .documents()
            .put_chunks(id, generation, drafts)
            .await
        {
            tracing::error!(%error, doc = %id, "writing chunks failed");
            return Ok(failed("writer error", true, Some(generation)));
        }
        // Searchable only once the index holds the chunks: the job waits
        // for the commit holding its change (the attempt's deadline bounds
        // the wait).
        let change = IndexChange::AddGeneration {
            org_id: org,
            doc_id: id,
            generation,
        };
        let write_ms = started.elapsed().as_millis() as u64 - parse_ms - chunk_ms;
        let seq = self.store.documents().log_index_change(change).await?;
        self.index.changed(seq).await;
        if !self.index.committed(seq, self.config.attempt_timeout).await {
            return Ok(failed("writer error", true, Some(generation)));
        }
        let stored = self
            .store
            .documents()
            .finish_ingest(org, id, generation, (count, pages))
            .await?;
        if !stored {
            self.purge.notify_one();
            return Ok(Outcome::Gone);
        }
        // Ready without vectors: the embedder finds the new chunks.
        self.embedder.changed();
        let total_ms = started.elapsed().as_millis() as u64;
        tracing::info!(
            doc = %id, chunks = count, parse_ms, chunk_ms, write_ms,
            index_ms = total_ms - parse_ms - chunk_ms - write_ms,
            "knowledge document ready"
        );
        Ok(Outcome::Ready)
    }

    async fn purge_loop(self: Arc<Self>) {
        loop {
            let step = self
                .store
                .documents()
                .knowledge_purge_step(self.files.clone(), PURGE_BATCH)
                .await;
            match step {
                Ok(0) => {
                    // A delete wakes it; a thread's purge deletes its
                    // documents without a handle on this service, so it
                    // also looks every few seconds.
                    let _ =
                        tokio::time::timeout(Duration::from_secs(5), self.purge.notified()).await;
                }
                Ok(_) => {}
                Err(error) => {
                    tracing::error!(%error, "the knowledge purge failed; retrying");
                    tokio::time::sleep(Duration::from_secs(5)).await;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_come_after_ten_then_sixty_seconds_then_never() {
        assert_eq!(retry_delay(1), Some(TimeDelta::seconds(10)));
        assert_eq!(retry_delay(2), Some(TimeDelta::seconds(60)));
        assert_eq!(retry_delay(3), None);
    }
}
