//! Knowledge search (`knowledge.md` §3): a query checked and analyzed,
//! run on the blocking pool under the search slots (at most
//! `search_threads` at once, 64 more may wait, each gives up after 5 s),
//! its hits kept only where the store says their generation is the
//! document's searchable one. The API's `POST /api/knowledge/search` and
//! the `search_knowledge` tool both come here.

mod slots;
mod vector;

use std::sync::Arc;
use std::time::Duration;

use confer_actors::{DocumentId, OrgId};
use serde::{Deserialize, Serialize};

use self::slots::SearchSlots;
use self::vector::{VectorRanking, vector_ranking};
use super::embed::Embedder;
use super::index::{self, IndexConfig, KnowledgeIndex};
use super::vector_cache::VectorCache;
use super::vectors::fuse;
use super::{Chunk, Document, Scope};
use crate::outbound::Outbound;
use crate::settings::Settings;
use crate::store::Store;

/// The longest query, in characters.
pub const MAX_QUERY_CHARS: usize = 1_000;
/// The most terms a query may analyze to.
pub const MAX_QUERY_TERMS: usize = 64;
/// Hits each ranking contributes before fusion and filtering.
const CANDIDATES: usize = 50;

/// How results are ranked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    /// Reciprocal-rank fusion of BM25 and vectors (BM25 alone without
    /// vectors).
    #[default]
    Hybrid,
    Bm25,
    Vector,
}

/// A search, its scopes already decided by the caller's access.
#[derive(Clone, Debug)]
pub struct SearchRequest {
    pub org: OrgId,
    pub scopes: Vec<Scope>,
    pub query: String,
    pub top_k: usize,
    pub mode: SearchMode,
    /// The least cosine (`vector` mode only).
    pub min_score: Option<f32>,
}

/// One result, with its document and chunk (for the tool's sources and
/// citations).
#[derive(Clone, Debug)]
pub struct SearchHit {
    pub document: Document,
    pub chunk: Chunk,
    pub score: f32,
    pub bm25_rank: Option<usize>,
    pub vector_rank: Option<usize>,
}

/// A search's answer.
#[derive(Clone, Debug)]
pub struct SearchAnswer {
    pub hits: Vec<SearchHit>,
    /// The ranking used (`hybrid` becomes `bm25` without vectors).
    pub mode: SearchMode,
    /// The index is being rebuilt: results may miss documents.
    pub partial: bool,
}

/// Why a search did not answer.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// A field breaks a rule: `field: rule`.
    #[error("{0}")]
    Invalid(String),
    /// Too many searches wait, or this one waited too long.
    #[error("too many knowledge searches are running; retry shortly")]
    Busy,
    #[error("knowledge search failed: {0}")]
    Failed(String),
}

/// The search service: the index and the slots.
pub struct KnowledgeSearch {
    store: Store,
    index: Arc<KnowledgeIndex>,
    embedder: Arc<Embedder>,
    vectors: Arc<VectorCache>,
    slots: SearchSlots,
    /// Vectors a query's scopes may hold for the exact scan; beyond, the
    /// graph.
    exact_scan_max: usize,
}

/// The analyzed terms of `query`, or why it is refused.
pub fn query_terms(query: &str) -> Result<Vec<String>, SearchError> {
    if query.trim().is_empty() {
        return Err(SearchError::Invalid("query: must not be empty".into()));
    }
    if query.chars().count() > MAX_QUERY_CHARS {
        return Err(SearchError::Invalid(format!(
            "query: at most {MAX_QUERY_CHARS} characters"
        )));
    }
    let terms = index::terms(query);
    if terms.len() > MAX_QUERY_TERMS {
        return Err(SearchError::Invalid(format!(
            "query: at most {MAX_QUERY_TERMS} terms"
        )));
    }
    Ok(terms)
}

impl KnowledgeSearch {
    /// Opens `{data_dir}/knowledge/index/` and its writer as `settings`
    /// say.
    pub fn from_settings(
        store: &Store,
        settings: &Settings,
        outbound: &Outbound,
    ) -> anyhow::Result<Arc<Self>> {
        let index = KnowledgeIndex::open(
            store.clone(),
            IndexConfig {
                dir: settings.data_dir.join("knowledge").join("index"),
                writer_memory_bytes: settings.knowledge_writer_memory_mb.max(16) << 20,
                commit_docs: settings.knowledge_commit_docs.max(1),
                commit_every: Duration::from_millis(settings.knowledge_commit_ms.max(1)),
            },
        )?;
        let vectors = Arc::new(VectorCache::new(settings.knowledge_vector_cache_mb << 20));
        let embedder = Embedder::start(store.clone(), outbound.clone(), Arc::clone(&vectors));
        Ok(Arc::new(Self::new(
            store.clone(),
            index,
            (embedder, vectors),
            settings.knowledge_search_threads,
            settings.knowledge_exact_scan_max,
        )))
    }

    /// Searches `index` with at most `threads` at once.
    pub fn new(
        store: Store,
        index: Arc<KnowledgeIndex>,
        (embedder, vectors): (Arc<Embedder>, Arc<VectorCache>),
        threads: usize,
        exact_scan_max: usize,
    ) -> Self {
        Self {
            store,
            index,
            embedder,
            vectors,
            slots: SearchSlots::new(threads),
            exact_scan_max,
        }
    }

    /// The index (for the writer's news).
    pub fn index(&self) -> &Arc<KnowledgeIndex> {
        &self.index
    }

    /// The vector cache (dropped by an org's changes on any node).
    pub fn vectors(&self) -> &Arc<VectorCache> {
        &self.vectors
    }

    /// The embedder (for its news, and the embeddings routes).
    pub fn embedder(&self) -> &Arc<Embedder> {
        &self.embedder
    }

    /// Runs `request`: BM25, vectors, or their fusion (the default when
    /// the org has embeddings).
    pub async fn search(&self, request: SearchRequest) -> Result<SearchAnswer, SearchError> {
        let terms = query_terms(&request.query)?;
        let org = request.org;
        let configured = self
            .store
            .embeddings()
            .embedding_config(org)
            .await
            .map_err(|e| SearchError::Failed(e.to_string()))?
            .is_some();
        let mut mode = match (request.mode, configured) {
            (SearchMode::Vector, false) => {
                return Err(SearchError::Invalid(
                    "mode: the org has no embeddings configured".into(),
                ));
            }
            (_, false) => SearchMode::Bm25,
            (mode, true) => mode,
        };
        let mut partial = self.index.rebuilding();
        let query_vector = match mode {
            SearchMode::Bm25 => None,
            _ => self.embedder.embed_query(org, &request.query).await,
        };
        if query_vector.is_none() {
            // Not embedded within 3 s (or not yet possible): BM25 alone.
            mode = SearchMode::Bm25;
        }
        let bm25 = match mode {
            SearchMode::Vector => Vec::new(),
            _ => {
                let scopes = request
                    .scopes
                    .iter()
                    .map(|scope| index::scope_term(org, scope))
                    .collect();
                self.raw(scopes, terms, CANDIDATES.max(request.top_k * 3))
                    .await?
            }
        };
        let vector = match query_vector {
            Some((config, query)) => {
                let (store, cache) = (self.store.clone(), Arc::clone(&self.vectors));
                // The loader runs on the search slot's blocking thread and
                // waits there for the store's answer.
                let runtime = tokio::runtime::Handle::current();
                let scopes = request.scopes.clone();
                let least = request.min_score.filter(|_| mode == SearchMode::Vector);
                let exact_scan_max = self.exact_scan_max;
                let VectorRanking {
                    hits,
                    partial: fallback,
                } = self
                    .slots
                    .run(move || {
                        vector_ranking(
                            (&store, &runtime),
                            &cache,
                            exact_scan_max,
                            (org, &scopes),
                            (&config, &query),
                            least,
                        )
                    })
                    .await?;
                partial |= fallback;
                hits
            }
            None => Vec::new(),
        };
        let ranked: Vec<(String, f32, Option<usize>, Option<usize>)> = match mode {
            SearchMode::Bm25 => bm25
                .into_iter()
                .enumerate()
                .map(|(i, hit)| (hit.chunk_id, hit.score, Some(i + 1), None))
                .collect(),
            SearchMode::Vector => vector
                .into_iter()
                .enumerate()
                .map(|(i, (id, cosine))| (id, cosine, None, Some(i + 1)))
                .collect(),
            SearchMode::Hybrid => {
                let bm25: Vec<String> = bm25
                    .into_iter()
                    .take(CANDIDATES)
                    .map(|h| h.chunk_id)
                    .collect();
                let vector: Vec<String> = vector.into_iter().map(|(id, _)| id).collect();
                fuse(&bm25, &vector)
                    .into_iter()
                    .map(|(id, score, b, v)| (id, score as f32, b, v))
                    .collect()
            }
        };
        // Read in one call; a hit whose generation is no longer the
        // searchable one counts for nothing.
        let mut ranks = std::collections::HashMap::with_capacity(ranked.len());
        let mut places = Vec::with_capacity(ranked.len());
        for (id, score, bm25_rank, vector_rank) in ranked {
            if let Some(place) = parse_chunk_id(&id) {
                ranks
                    .entry(place)
                    .or_insert((score, bm25_rank, vector_rank));
                places.push(place);
            }
        }
        let stored = self
            .store
            .documents()
            .searchable_chunks(org, places, request.top_k)
            .await
            .map_err(|e| SearchError::Failed(e.to_string()))?;
        let hits = stored
            .into_iter()
            .filter_map(|(document, chunk)| {
                let place = parse_chunk_id(&chunk.id)?;
                let (score, bm25_rank, vector_rank) = *ranks.get(&place)?;
                Some(SearchHit {
                    document,
                    chunk,
                    score,
                    bm25_rank,
                    vector_rank,
                })
            })
            .collect();
        Ok(SearchAnswer {
            hits,
            mode,
            partial,
        })
    }

    /// The index's hits for `terms` (analyzed) in `scopes` (scope terms),
    /// under the search slots; the caller checks each in the store.
    pub async fn raw(
        &self,
        scopes: Vec<String>,
        terms: Vec<String>,
        limit: usize,
    ) -> Result<Vec<super::index::IndexHit>, SearchError> {
        let index = Arc::clone(&self.index);
        self.slots
            .run(move || {
                index
                    .search(&scopes, &terms, limit)
                    .map_err(|e| SearchError::Failed(e.to_string()))
            })
            .await
    }
}

/// `{doc}:{generation}:{n}`.
fn parse_chunk_id(id: &str) -> Option<(DocumentId, u64, u32)> {
    let mut parts = id.split(':');
    let doc = parts.next()?.parse().ok()?;
    let generation = parts.next()?.parse().ok()?;
    let n = parts.next()?.parse().ok()?;
    Some((doc, generation, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_are_bounded_in_characters_and_terms() {
        assert!(matches!(query_terms("  "), Err(SearchError::Invalid(_))));
        let long = "a".repeat(MAX_QUERY_CHARS + 1);
        assert!(
            matches!(query_terms(&long), Err(SearchError::Invalid(d)) if d.contains("characters"))
        );
        let many = "word ".repeat(MAX_QUERY_TERMS + 1);
        assert!(matches!(query_terms(&many), Err(SearchError::Invalid(d)) if d.contains("terms")));
        assert_eq!(query_terms("Marmalade jars").unwrap().len(), 2);
    }

    #[test]
    fn chunk_ids_parse_back() {
        let doc = DocumentId::new();
        assert_eq!(parse_chunk_id(&format!("{doc}:3:17")), Some((doc, 3, 17)));
        assert_eq!(parse_chunk_id("nope"), None);
    }
}
