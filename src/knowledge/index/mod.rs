//! The knowledge search index (`knowledge.md` §3): a tantivy cache of the
//! chunks in sled under `{data_dir}/knowledge/index/`, fed by the store's
//! change log through one writer thread ([`writer`]), read by BM25 term
//! queries under a required scope filter. Everything here can be thrown
//! away: a missing, unreadable or older index is rebuilt from sled.

mod analysis;
mod writer;

use analysis::analyzer;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use confer_actors::OrgId;
use serde::{Deserialize, Serialize};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, Query, TermQuery, TermSetQuery};
use tantivy::schema::{
    Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::{Index, IndexReader, ReloadPolicy, TantivyDocument, Term};
use tokio::sync::watch;

use super::Scope;
use crate::store::Store;

/// Bumped when the schema or the analyzer changes: an index of another
/// version is rebuilt.
const SCHEMA_VERSION: u32 = 1;
/// What a memory's id starts with in the `chunk` field.
pub const MEMORY_HIT: &str = "m:";
/// The analyzer's name in the index.
const ANALYZER: &str = "confer_en";

/// How the index is set up (`CONFER_KNOWLEDGE_*`).
#[derive(Clone, Debug)]
pub struct IndexConfig {
    pub dir: PathBuf,
    pub writer_memory_bytes: usize,
    pub commit_docs: usize,
    pub commit_every: Duration,
}

/// The fields of an indexed chunk.
#[derive(Clone, Copy)]
struct Fields {
    /// The chunk's id (`{doc}:{generation}:{n}`), or a memory's
    /// (`m:{id}`), stored.
    chunk: Field,
    /// `org:{org}`, `agent:{id}`, `thread:{id}`, `mem:{agent}:{owner}`.
    scope: Field,
    /// The document's id, or the memory's.
    doc: Field,
    /// `{doc}:{generation}`: what a superseded generation's removal names.
    doc_gen: Field,
    text: Field,
    breadcrumb: Field,
}

fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let analyzed = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(ANALYZER)
            .set_index_option(IndexRecordOption::WithFreqs),
    );
    let fields = Fields {
        chunk: builder.add_text_field("chunk", STRING | STORED),
        scope: builder.add_text_field("scope", STRING),
        doc: builder.add_text_field("doc", STRING),
        doc_gen: builder.add_text_field("doc_gen", STRING),
        text: builder.add_text_field("text", analyzed.clone()),
        breadcrumb: builder.add_text_field("breadcrumb", analyzed),
    };
    (builder.build(), fields)
}

/// The terms the index holds for `text`, in order (repeats kept).
pub fn terms(text: &str) -> Vec<String> {
    let mut analyzer = analyzer();
    let mut stream = analyzer.token_stream(text);
    let mut terms = Vec::new();
    while let Some(token) = stream.next() {
        terms.push(token.text.clone());
    }
    terms
}

/// The term that files a chunk under its scope.
pub fn scope_term(org: OrgId, scope: &Scope) -> String {
    format!("{}:{}", scope.kind(), scope.id(org))
}

/// What the last commit recorded (the commit's payload).
#[derive(Serialize, Deserialize)]
struct CommitMark {
    schema: u32,
    /// The last change of the log the commit holds.
    seq: u64,
    /// False while a rebuild from sled is under way.
    complete: bool,
    /// The store's feed it applied (`MemoryRecords::index_feed`); marks
    /// of earlier versions have none, as sled's feed.
    #[serde(default)]
    feed: String,
}

/// The index, its reader, and the writer thread's news.
pub struct KnowledgeIndex {
    reader: IndexReader,
    fields: Fields,
    rebuilding: Arc<AtomicBool>,
    committed: watch::Receiver<u64>,
    wake: std::sync::mpsc::SyncSender<()>,
}

/// A chunk the index found: its id and BM25 score.
#[derive(Clone, Debug)]
pub struct IndexHit {
    pub chunk_id: String,
    pub score: f32,
}

impl KnowledgeIndex {
    /// Opens the index in `config.dir` (rebuilding it from `store` in the
    /// background when it is missing, unreadable or of another version)
    /// and starts its writer thread.
    /// Must be called on the runtime the store's calls run on.
    pub fn open(store: Store, config: IndexConfig) -> anyhow::Result<Arc<Self>> {
        let runtime = tokio::runtime::Handle::try_current()?;
        let (index, mark) = match open_existing(&config.dir) {
            Some((index, mark)) if mark.schema == SCHEMA_VERSION && mark.complete => {
                (index, Some(mark))
            }
            _ => (create_fresh(&config.dir)?, None),
        };
        let (_, fields) = schema();
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        let rebuilding = Arc::new(AtomicBool::new(mark.is_none()));
        let start = mark.as_ref().map_or(0, |m| m.seq);
        let feed = mark.as_ref().map(|m| m.feed.clone());
        let (committed_tx, committed) = watch::channel(start);
        // The writer's channel holds 4,096 changes (§7): a job waits on it,
        // a request never does.
        let (wake, woken) = std::sync::mpsc::sync_channel(4096);
        // The writer, and tantivy's indexing threads it starts, are made
        // on their own thread at batch priority: threads inherit it, and
        // indexing then yields the cores to turns (`thread_priority`).
        let (made_tx, made) = std::sync::mpsc::sync_channel(1);
        let (made_reader, made_rebuilding) = (reader.clone(), Arc::clone(&rebuilding));
        std::thread::Builder::new()
            .name("knowledge-index".into())
            .spawn(move || {
                crate::thread_priority::yield_to_latency_work();
                let writer = writer::IndexWriterTask::new(
                    (store, runtime, feed),
                    &index,
                    made_reader,
                    fields,
                    config,
                    committed_tx,
                    made_rebuilding,
                );
                match writer {
                    Ok(writer) => {
                        let _ = made_tx.send(Ok(()));
                        writer.run(woken, start);
                    }
                    Err(error) => {
                        let _ = made_tx.send(Err(error));
                    }
                }
            })?;
        made.recv()
            .map_err(|_| anyhow::anyhow!("the knowledge index writer thread ended"))??;
        Ok(Arc::new(Self {
            reader,
            fields,
            rebuilding,
            committed,
            wake,
        }))
    }

    /// Whether the index is being rebuilt (searches answer `partial`).
    pub fn rebuilding(&self) -> bool {
        self.rebuilding.load(Ordering::Relaxed)
    }

    /// Tells the writer of a change, waiting while its channel is full (a
    /// job's way).
    pub async fn changed(&self, _seq: u64) {
        let wake = self.wake.clone();
        let _ = tokio::task::spawn_blocking(move || wake.send(())).await;
    }

    /// Tells the writer of a change without waiting (a request's way: a
    /// full channel means the writer has work and reads the log anyway).
    pub fn nudge(&self) {
        let _ = self.wake.try_send(());
    }

    /// Waits until a commit holds change `seq`; false after `within`.
    pub async fn committed(&self, seq: u64, within: Duration) -> bool {
        let mut committed = self.committed.clone();
        tokio::time::timeout(within, committed.wait_for(|done| *done >= seq))
            .await
            .is_ok_and(|r| r.is_ok())
    }

    /// The best `limit` chunks for `terms` (analyzed) in `scopes` (scope
    /// terms): a disjunction of term queries over the text and the
    /// breadcrumb under a required scope filter. Blocking.
    pub fn search(
        &self,
        scopes: &[String],
        terms: &[String],
        limit: usize,
    ) -> tantivy::Result<Vec<IndexHit>> {
        if terms.is_empty() || scopes.is_empty() {
            return Ok(Vec::new());
        }
        let f = self.fields;
        let filter = TermSetQuery::new(scopes.iter().map(|s| Term::from_field_text(f.scope, s)));
        let mut wanted: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for term in terms.iter().filter(|t| seen.insert(t.as_str())) {
            for field in [f.text, f.breadcrumb] {
                wanted.push((
                    Occur::Should,
                    Box::new(TermQuery::new(
                        Term::from_field_text(field, term),
                        IndexRecordOption::WithFreqs,
                    )),
                ));
            }
        }
        let query = BooleanQuery::new(vec![
            (
                Occur::Must,
                Box::new(ConstScoreQuery::new(Box::new(filter), 0.0)),
            ),
            (Occur::Must, Box::new(BooleanQuery::new(wanted))),
        ]);
        let searcher = self.reader.searcher();
        let top = searcher.search(&query, &TopDocs::with_limit(limit))?;
        let mut hits = Vec::with_capacity(top.len());
        for (score, address) in top {
            let doc: TantivyDocument = searcher.doc(address)?;
            if let Some(id) = doc.get_first(f.chunk).and_then(|v| v.as_str()) {
                hits.push(IndexHit {
                    chunk_id: id.to_owned(),
                    score,
                });
            }
        }
        Ok(hits)
    }

    /// Bytes the index takes on disk (for the benchmark's report).
    pub fn disk_bytes(dir: &Path) -> u64 {
        std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .filter_map(|e| e.metadata().ok())
                    .map(|m| m.len())
                    .sum()
            })
            .unwrap_or(0)
    }
}

/// The index in `dir` and its last commit's mark, if both can be read.
fn open_existing(dir: &Path) -> Option<(Index, CommitMark)> {
    let index = Index::open_in_dir(dir).ok()?;
    let payload = index.load_metas().ok()?.payload?;
    let mark: CommitMark = serde_json::from_str(&payload).ok()?;
    register(&index);
    Some((index, mark))
}

/// A new empty index in `dir`, whatever was there before.
fn create_fresh(dir: &Path) -> anyhow::Result<Index> {
    if dir.exists() {
        std::fs::remove_dir_all(dir)?;
    }
    std::fs::create_dir_all(dir)?;
    let (schema, _) = schema();
    let index = Index::create_in_dir(dir, schema)?;
    register(&index);
    Ok(index)
}

fn register(index: &Index) {
    index.tokenizers().register(ANALYZER, analyzer());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_analyzer_folds_case_accents_and_stems() {
        assert_eq!(terms("Café RUNNING runs"), ["cafe", "run", "run"]);
        assert_eq!(terms("Marmalade!"), ["marmalad"]);
    }
}
