//! The vector ranking of a search (`knowledge.md` §3): the exact scan of
//! the org's cached vectors while the query's scopes hold at most
//! `exact_scan_max`; beyond, the org's HNSW graph. An org without a graph
//! yet (or whose graph was evicted) starts a build and is answered by the
//! exact scan, marked partial.

use std::sync::Arc;

use confer_actors::{DocumentId, OrgId};

use super::{CANDIDATES, SearchError};
use crate::knowledge::Scope;
use crate::knowledge::vector_cache::{OrgVectors, VectorCache};
use crate::store::Store;
use crate::store::knowledge::vectors::EmbeddingConfig;

/// A vector ranking: chunk ids and cosines, best first, and whether it
/// came from a fallback (the scan where a graph was due).
pub(super) struct VectorRanking {
    pub hits: Vec<(String, f32)>,
    pub partial: bool,
}

/// The best [`CANDIDATES`] chunks of `scopes` by cosine with `query` (at
/// least `least`), on a blocking thread (`runtime` runs a load from the
/// store).
pub(super) fn vector_ranking(
    (store, runtime): (&Store, &tokio::runtime::Handle),
    cache: &Arc<VectorCache>,
    exact_scan_max: usize,
    (org, scopes): (OrgId, &[Scope]),
    (config, query): (&EmbeddingConfig, &[i8]),
    least: Option<f32>,
) -> Result<VectorRanking, SearchError> {
    let (model, dims) = (config.model.as_str(), query.len());
    let loaded = cache
        .get_or_load(org, model, dims, || {
            let found =
                runtime.block_on(store.embeddings().org_vectors(org, model.to_owned(), dims))?;
            Ok(OrgVectors::new(model, dims, found))
        })
        .map_err(|e| SearchError::Failed(e.to_string()))?;
    let vectors = &loaded.vectors;
    let (found, partial) = if vectors.count_in(scopes) <= exact_scan_max {
        (vectors.scan(scopes, query, least, CANDIDATES), false)
    } else {
        match &loaded.graph {
            Some(view) => {
                if view.is_stale() {
                    cache.build_graph(org, Arc::clone(vectors));
                }
                let found = view.search(vectors, scopes, query, least, CANDIDATES);
                // The graph's nearest missed the scopes: the exact scan.
                let found = found.unwrap_or_else(|| vectors.scan(scopes, query, least, CANDIDATES));
                (found, false)
            }
            None => {
                cache.build_graph(org, Arc::clone(vectors));
                (vectors.scan(scopes, query, least, CANDIDATES), true)
            }
        }
    };
    Ok(VectorRanking {
        hits: found
            .into_iter()
            .filter_map(|(key, score)| chunk_id_of(&key).map(|id| (id, score)))
            .collect(),
        partial,
    })
}

/// The id (`{doc}:{generation}:{n}`) of a chunk's store key.
fn chunk_id_of(key: &[u8]) -> Option<String> {
    let (doc, generation, n) = crate::store::port::embeddings::key_parts(key)?;
    Some(format!(
        "{}:{}:{}",
        DocumentId(doc),
        generation as u64,
        n as u32
    ))
}
