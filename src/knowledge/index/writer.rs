//! The index's one writer (`knowledge.md` §3): a thread with one tantivy
//! `IndexWriter` that applies the store's change feed in order, commits
//! every `commit_docs` changes or `commit_every` with the last change's
//! sequence and the feed's name, then tells the store (sled prunes its
//! log). At start it rebuilds an index it cannot trust from the rows, or
//! replays the changes after its last commit. On PostgreSQL, whose feed
//! other nodes write too, it reads the feed every second, and rebuilds
//! when the feed no longer holds what it missed.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use confer_actors::{StoreError, StoreFuture};
use tantivy::{Index, IndexReader, IndexWriter, TantivyDocument, Term};
use tokio::sync::watch;

use super::{CommitMark, Fields, IndexConfig, MEMORY_HIT, SCHEMA_VERSION, scope_term};
use crate::store::Store;
use crate::store::knowledge::changes::IndexChange;

/// tantivy's least memory per indexing thread (its
/// `MEMORY_BUDGET_NUM_BYTES_MIN` is 15 MB).
const MEMORY_PER_THREAD: usize = 16 << 20;

/// Indexing threads: two when the machine has two cores and the memory
/// budget covers both, else one. They run at the batch priority of the
/// thread that makes them (see [`super::KnowledgeIndex::open`]), so a
/// document's indexing takes both cores only while turns leave them idle.
fn indexing_threads(config: &IndexConfig) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    (config.writer_memory_bytes / MEMORY_PER_THREAD).clamp(1, cores.min(2))
}

/// Changes read from the log at once.
const READ_BATCH: usize = 256;

/// How often the feed is read on PostgreSQL, where other nodes write it
/// without waking this writer.
const CLUSTER_POLL: Duration = Duration::from_secs(1);

/// How long the tantivy writer is kept once everything is committed: its
/// indexing and merge threads and its two indexing tables (about 5 MiB
/// at rest) go after this, and come back with the next change.
const WRITER_IDLE: Duration = Duration::from_secs(10);

/// The writer thread's state.
pub(super) struct IndexWriterTask {
    store: Store,
    /// The runtime the store's calls run on (this thread waits for them).
    runtime: tokio::runtime::Handle,
    /// The feed the last commit read (its mark's), then the store's.
    feed: Option<String>,
    index: Index,
    /// The tantivy writer while there is work (see [`WRITER_IDLE`]).
    writer: Option<IndexWriter>,
    /// When the writer was last used.
    last_used: Instant,
    reader: IndexReader,
    fields: Fields,
    config: IndexConfig,
    committed: watch::Sender<u64>,
    rebuilding: Arc<AtomicBool>,
    /// Documents added or removed since the last commit.
    pending_docs: usize,
    /// The first change applied since the last commit, if any.
    pending_since: Option<Instant>,
}

impl IndexWriterTask {
    pub(super) fn new(
        (store, runtime, feed): (Store, tokio::runtime::Handle, Option<String>),
        index: &Index,
        reader: IndexReader,
        fields: Fields,
        config: IndexConfig,
        committed: watch::Sender<u64>,
        rebuilding: Arc<AtomicBool>,
    ) -> tantivy::Result<Self> {
        // Made once now so that a store whose index another process holds
        // fails at start; released at once if nothing is to be done.
        let writer =
            index.writer_with_num_threads(indexing_threads(&config), config.writer_memory_bytes)?;
        Ok(Self {
            store,
            runtime,
            feed,
            index: index.clone(),
            writer: Some(writer),
            last_used: Instant::now()
                .checked_sub(WRITER_IDLE)
                .unwrap_or_else(Instant::now),
            reader,
            fields,
            config,
            committed,
            rebuilding,
            pending_docs: 0,
            pending_since: None,
        })
    }

    /// Waits for a call to the store.
    fn wait<T>(&self, call: StoreFuture<T>) -> Result<T, StoreError> {
        self.runtime.block_on(call)
    }

    /// Rebuilds from the store's rows until it succeeds; the change after
    /// which the feed is applied on top.
    fn rebuild_until_done(&mut self) -> u64 {
        self.rebuilding.store(true, Ordering::Relaxed);
        loop {
            let floor = self.wait(self.store.memories().index_floor());
            match floor.map_err(anyhow::Error::from).and_then(|floor| {
                self.rebuild()?;
                Ok(floor)
            }) {
                // The mark says complete only after a commit past the
                // rebuild.
                Ok(floor) => {
                    self.pending_since = Some(Instant::now());
                    return floor;
                }
                Err(error) => {
                    tracing::error!(%error, "rebuilding the knowledge index failed; retrying");
                    std::thread::sleep(Duration::from_secs(5));
                }
            }
        }
    }

    /// Runs until every sender of `woken` is gone.
    pub(super) fn run(mut self, woken: Receiver<()>, mut applied: u64) {
        let feed = loop {
            match self.wait(self.store.memories().index_feed()) {
                Ok(feed) => break feed,
                Err(error) => {
                    tracing::error!(%error, "reading the knowledge index's feed failed; retrying");
                    std::thread::sleep(Duration::from_secs(1));
                }
            }
        };
        // An index built from another feed (another database) is not
        // this one's cache.
        if self.feed.as_ref().is_some_and(|built| *built != feed) {
            self.rebuilding.store(true, Ordering::Relaxed);
        }
        self.feed = Some(feed);
        if self.rebuilding.load(Ordering::Relaxed) {
            applied = self.rebuild_until_done();
        }
        let poll = match self.store.is_postgres() {
            true => CLUSTER_POLL,
            false => Duration::MAX,
        };
        loop {
            match self.apply_log(applied) {
                Ok(Some(last)) => applied = last,
                // Behind the feed's floor: what it missed is gone.
                Ok(None) => {
                    tracing::warn!(
                        applied,
                        "the knowledge index fell behind its feed; rebuilding"
                    );
                    applied = self.rebuild_until_done();
                    continue;
                }
                Err(error) => {
                    tracing::error!(%error, "applying knowledge index changes failed; retrying");
                    std::thread::sleep(Duration::from_secs(1));
                    continue;
                }
            }
            let mut wait = match self.pending_since {
                Some(since) => self.config.commit_every.saturating_sub(since.elapsed()),
                None => self.config.commit_every,
            }
            .min(poll);
            if self.pending_since.is_none() && self.writer.is_some() {
                let idle = self.last_used.elapsed();
                if idle >= WRITER_IDLE {
                    self.release_writer();
                } else {
                    wait = wait.min(WRITER_IDLE - idle);
                }
            }
            if self.pending_since.is_some()
                && (wait.is_zero() || self.pending_docs >= self.config.commit_docs)
            {
                if let Err(error) = self.commit(applied, true) {
                    tracing::error!(%error, "committing the knowledge index failed; retrying");
                    std::thread::sleep(Duration::from_secs(1));
                }
                continue;
            }
            match woken.recv_timeout(wait.max(Duration::from_millis(1))) {
                Ok(()) | Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    if self.pending_since.is_some() {
                        let _ = self.commit(applied, true);
                    }
                    return;
                }
            }
        }
    }

    /// Applies the feed's changes after `applied`, committing whenever
    /// `commit_docs` are pending; returns the last one applied, or `None`
    /// when the feed no longer holds the changes after `applied`.
    fn apply_log(&mut self, mut applied: u64) -> anyhow::Result<Option<u64>> {
        loop {
            let read = self
                .store
                .memories()
                .index_changes_after(applied, READ_BATCH);
            let Some(batch) = self.wait(read)? else {
                return Ok(None);
            };
            if batch.is_empty() {
                return Ok(Some(applied));
            }
            for (seq, change) in batch {
                self.pending_docs += self.apply(&change)?;
                self.pending_since.get_or_insert_with(Instant::now);
                applied = seq;
                if self.pending_docs >= self.config.commit_docs {
                    self.commit(applied, true)?;
                }
            }
        }
    }

    /// The tantivy writer, made again if it was released.
    fn writer(&mut self) -> tantivy::Result<&mut IndexWriter> {
        self.last_used = Instant::now();
        match &mut self.writer {
            Some(writer) => Ok(writer),
            slot @ None => {
                let threads = indexing_threads(&self.config);
                let made = self
                    .index
                    .writer_with_num_threads(threads, self.config.writer_memory_bytes)?;
                Ok(slot.insert(made))
            }
        }
    }

    /// Lets the writer go once its merges are done (everything is
    /// committed: nothing is lost).
    fn release_writer(&mut self) {
        if let Some(writer) = self.writer.take()
            && let Err(error) = writer.wait_merging_threads()
        {
            tracing::warn!(%error, "a knowledge index merge failed");
        }
    }

    /// Applies one change; returns how many index entries it touched.
    fn apply(&mut self, change: &IndexChange) -> anyhow::Result<usize> {
        let f = self.fields;
        let store = self.store.clone();
        match change {
            IndexChange::AddGeneration {
                org_id,
                doc_id,
                generation,
            } => {
                let (org, id, generation) = (*org_id, *doc_id, *generation);
                let found = self.wait(store.documents().generation_chunks(org, id, generation))?;
                // Once, however often it is applied.
                let doc_gen = format!("{id}:{generation}");
                let writer = self.writer()?;
                writer.delete_term(Term::from_field_text(f.doc_gen, &doc_gen));
                let Some((scope, chunks)) = found else {
                    return Ok(1);
                };
                let scope = scope_term(org, &scope);
                for chunk in &chunks {
                    let mut doc = TantivyDocument::default();
                    doc.add_text(f.chunk, &chunk.id);
                    doc.add_text(f.scope, &scope);
                    doc.add_text(f.doc, id.to_string());
                    doc.add_text(f.doc_gen, &doc_gen);
                    doc.add_text(f.text, &chunk.text);
                    doc.add_text(f.breadcrumb, &chunk.breadcrumb);
                    writer.add_document(doc)?;
                }
                Ok(chunks.len().max(1))
            }
            IndexChange::AddMemory {
                org_id,
                agent_id,
                memory_id,
            } => {
                let (org, agent, id) = (*org_id, *agent_id, *memory_id);
                let key = id.to_string();
                let found = self.wait(store.memories().memory(org, agent, id))?;
                let writer = self.writer()?;
                writer.delete_term(Term::from_field_text(f.doc, &key));
                if let Some(memory) = found {
                    let mut doc = TantivyDocument::default();
                    doc.add_text(f.chunk, format!("{MEMORY_HIT}{key}"));
                    doc.add_text(f.scope, memory.owner().scope_term(agent));
                    doc.add_text(f.doc, &key);
                    doc.add_text(f.text, &memory.content);
                    writer.add_document(doc)?;
                }
                Ok(1)
            }
            IndexChange::RemoveMemory { memory_id } => {
                self.writer()?
                    .delete_term(Term::from_field_text(f.doc, &memory_id.to_string()));
                Ok(1)
            }
            IndexChange::RemoveGeneration { doc_id, generation } => {
                let term = match generation {
                    Some(generation) => {
                        Term::from_field_text(f.doc_gen, &format!("{doc_id}:{generation}"))
                    }
                    None => Term::from_field_text(f.doc, &doc_id.to_string()),
                };
                self.writer()?.delete_term(term);
                Ok(1)
            }
        }
    }

    /// Commits with `seq` as the last change held, makes it visible to
    /// searches, announces it and prunes the log.
    fn commit(&mut self, seq: u64, complete: bool) -> anyhow::Result<()> {
        let mark = serde_json::to_string(&CommitMark {
            schema: SCHEMA_VERSION,
            seq,
            complete,
            feed: self.feed.clone().unwrap_or_default(),
        })?;
        let mut prepared = self.writer()?.prepare_commit()?;
        prepared.set_payload(&mark);
        prepared.commit()?;
        self.reader.reload()?;
        self.pending_docs = 0;
        self.pending_since = None;
        if complete {
            self.committed.send_replace(seq);
            self.wait(self.store.memories().index_committed(seq))?;
        }
        Ok(())
    }

    /// Indexes every searchable generation in sled, committing as it goes
    /// (marked incomplete, so a crash meanwhile rebuilds again).
    fn rebuild(&mut self) -> anyhow::Result<()> {
        let started = Instant::now();
        self.writer()?.delete_all_documents()?;
        let generations = self.wait(self.store.documents().searchable_generations())?;
        let mut chunks = 0;
        for found in &generations {
            let change = IndexChange::AddGeneration {
                org_id: found.org_id,
                doc_id: found.doc_id,
                generation: found.generation,
            };
            let added = self.apply(&change)?;
            chunks += added;
            self.pending_docs += added;
            if self.pending_docs >= self.config.commit_docs * 10 {
                self.commit(0, false)?;
            }
        }
        let memories = self.wait(self.store.memories().memory_ids())?;
        for (org_id, agent_id, memory_id) in &memories {
            self.pending_docs += self.apply(&IndexChange::AddMemory {
                org_id: *org_id,
                agent_id: *agent_id,
                memory_id: *memory_id,
            })?;
            if self.pending_docs >= self.config.commit_docs * 10 {
                self.commit(0, false)?;
            }
        }
        // Complete only once the log is replayed on top (in `run`): the
        // mark stays incomplete until then.
        self.commit(0, false)?;
        self.rebuilding.store(false, Ordering::Relaxed);
        tracing::info!(
            documents = generations.len(),
            chunks,
            memories = memories.len(),
            took_ms = started.elapsed().as_millis() as u64,
            "knowledge index rebuilt from the store"
        );
        Ok(())
    }
}
