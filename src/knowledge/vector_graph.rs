//! The HNSW graph of an org's vectors (`knowledge.md` §3): searched in
//! place of the exact scan once a query's scopes hold more than
//! `exact_scan_max` vectors. A graph is built by `hnsw_rs` (M 16,
//! ef_construction 200) from one snapshot of the org's cached vectors, in
//! the background, and never changed after: `hnsw_rs` cannot delete.
//! What changes after the build is carried by a [`GraphView`] against the
//! newest snapshot: the graph's points no longer there are filtered out,
//! the snapshot's vectors not in the graph are scanned exactly. Past 20%
//! of either the graph is built again. Graphs are not persisted.

use std::collections::HashMap;
use std::sync::Arc;

use hnsw_rs::prelude::{Distance, Hnsw};

use super::Scope;
use super::vector_cache::OrgVectors;
use super::vectors::cosine;

/// Links per point and layer (`knowledge.md` §3).
const MAX_LINKS: usize = 16;
/// Candidates kept while linking a new point.
const EF_CONSTRUCTION: usize = 200;
/// Layers at most (`hnsw_rs`'s own bound).
const MAX_LAYERS: usize = 16;
/// The share of dead or unlinked points past which a graph is rebuilt.
const STALE_SHARE: usize = 5;

/// `1 - cosine` of two quantized unit vectors: the graph's distance,
/// never below 0 (`hnsw_rs` asserts it; rounding can put a quantized
/// cosine a little past 1).
#[derive(Clone, Copy, Default)]
pub struct QuantizedCosine;

impl Distance<i8> for QuantizedCosine {
    fn eval(&self, a: &[i8], b: &[i8]) -> f32 {
        (1.0 - cosine(a, b)).max(0.0)
    }
}

/// A built graph: its points' keys and scopes by data id, and `hnsw_rs`'s
/// layers.
pub struct VectorGraph {
    model: String,
    dims: usize,
    keys: Vec<Vec<u8>>,
    scopes: Vec<Scope>,
    ids: HashMap<Vec<u8>, usize>,
    hnsw: Hnsw<'static, i8, QuantizedCosine>,
}

impl VectorGraph {
    /// What a graph of `points` vectors of `dims` components holds, about
    /// (the data, up to `2 × M` links of layer 0 at ~40 bytes each, the key
    /// and its map entry): what it counts against `vector_cache_mb`.
    pub fn estimated_bytes(points: usize, dims: usize) -> usize {
        points * (dims + 2 * MAX_LINKS * 40 + 160)
    }

    /// Links every vector of `vectors`, one at a time on this thread (the
    /// server's cores answer turns meanwhile).
    pub fn build(vectors: &OrgVectors) -> Self {
        let points = vectors.len();
        let hnsw = Hnsw::new(
            MAX_LINKS,
            points.max(1),
            MAX_LAYERS,
            EF_CONSTRUCTION,
            QuantizedCosine,
        );
        let mut keys = Vec::with_capacity(points);
        let mut scopes = Vec::with_capacity(points);
        let mut ids = HashMap::with_capacity(points);
        for i in 0..points {
            let (key, scope, components) = vectors.get(i);
            hnsw.insert_slice((components, i));
            ids.insert(key.to_vec(), i);
            keys.push(key.to_vec());
            scopes.push(scope);
        }
        Self {
            model: vectors.model.clone(),
            dims: vectors.dims,
            keys,
            scopes,
            ids,
            hnsw,
        }
    }

    /// Points linked.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn bytes(&self) -> usize {
        Self::estimated_bytes(self.len(), self.dims)
    }

    /// The graph as seen from `vectors`, a later snapshot of the same
    /// org and model: which points are still there, which vectors are not
    /// linked.
    pub fn view(self: &Arc<Self>, vectors: &OrgVectors) -> Option<GraphView> {
        if vectors.model != self.model || vectors.dims != self.dims {
            return None;
        }
        let mut alive = vec![false; self.len()];
        let mut tail = Vec::new();
        for i in 0..vectors.len() {
            let (key, _, _) = vectors.get(i);
            match self.ids.get(key) {
                Some(&id) => alive[id] = true,
                None => tail.push(i),
            }
        }
        let dead = alive.iter().filter(|a| !**a).count();
        Some(GraphView {
            graph: Arc::clone(self),
            alive,
            dead,
            tail,
        })
    }
}

/// A graph against one snapshot of the org's vectors.
pub struct GraphView {
    graph: Arc<VectorGraph>,
    /// By data id: whether the snapshot still holds the point.
    alive: Vec<bool>,
    dead: usize,
    /// The snapshot's vectors the graph does not link (by index).
    tail: Vec<usize>,
}

impl GraphView {
    /// Whether so much changed since the build that a new graph is due.
    pub fn is_stale(&self) -> bool {
        let points = self.graph.len().max(1);
        self.dead * STALE_SHARE > points || self.tail.len() * STALE_SHARE > points
    }

    pub fn graph(&self) -> &Arc<VectorGraph> {
        &self.graph
    }

    /// The best `limit` of `scopes` by cosine with `query` (at least
    /// `least`): the graph's `ef` = max(64, 4 × limit) nearest, kept to
    /// live points of the scopes, merged with the exact scan of the
    /// unlinked vectors of `vectors` (the snapshot this view was made
    /// against); (chunk key, cosine), best first. `None` when fewer than
    /// `limit` of the nearest are in the scopes while the scopes hold
    /// more: the caller scans instead.
    ///
    /// The scopes are kept after the search, not given to it: `hnsw_rs`'s
    /// filtered search never stops early and visits the whole graph. The
    /// graph serves only scopes holding more than `exact_scan_max`, a
    /// large share of its points, so its nearest rarely miss them.
    pub fn search(
        &self,
        vectors: &OrgVectors,
        scopes: &[Scope],
        query: &[i8],
        least: Option<f32>,
        limit: usize,
    ) -> Option<Vec<(Vec<u8>, f32)>> {
        let graph = &self.graph;
        if query.len() != graph.dims {
            return Some(Vec::new());
        }
        let ef = (4 * limit).max(64);
        let nearest = graph.hnsw.search(query, ef, ef);
        let reached = nearest.len();
        let mut found: Vec<(Vec<u8>, f32)> = nearest
            .into_iter()
            .filter(|n| {
                self.alive.get(n.d_id).copied().unwrap_or(false)
                    && graph.scopes.get(n.d_id).is_some_and(|s| scopes.contains(s))
            })
            .filter_map(|n| Some((graph.keys.get(n.d_id)?.clone(), 1.0 - n.distance)))
            .collect();
        if found.len() < limit && reached == ef {
            // The scopes' points are too far down the graph's answer.
            return None;
        }
        found.retain(|(_, score)| least.is_none_or(|least| *score >= least));
        found.truncate(limit);
        found.extend(vectors.scan_some(&self.tail, scopes, query, least, limit));
        found.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        found.dedup_by(|a, b| a.0 == b.0);
        found.truncate(limit);
        Some(found)
    }

    /// What the view holds beyond its graph.
    pub fn bytes(&self) -> usize {
        self.alive.len() + self.tail.len() * std::mem::size_of::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::vectors::quantize;
    use confer_actors::AgentId;

    /// `n` pseudo-random unit vectors of 32 components; every fifth in
    /// an agent's scope.
    fn snapshot(n: usize, agent: AgentId, seed: u64) -> Vec<(Vec<u8>, Scope, Vec<i8>)> {
        let mut state = seed;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 2_000) as f32 / 1_000.0 - 1.0
        };
        (0..n)
            .map(|i| {
                let v: Vec<f32> = (0..32).map(|_| next()).collect();
                let scope = if i % 5 == 0 {
                    Scope::Agent(agent)
                } else {
                    Scope::Org
                };
                let key = (i as u64).to_be_bytes().repeat(4)[..28].to_vec();
                (key, scope, quantize(&v).unwrap())
            })
            .collect()
    }

    fn keys(hits: &[(Vec<u8>, f32)]) -> Vec<Vec<u8>> {
        hits.iter().map(|(key, _)| key.clone()).collect()
    }

    /// The index a test key was made from.
    fn index_of(key: &[u8]) -> u64 {
        u64::from_be_bytes(key[..8].try_into().unwrap())
    }

    #[test]
    fn the_graph_finds_what_the_exact_scan_finds() {
        let agent = AgentId::new();
        let vectors = OrgVectors::new("m", 32, snapshot(2_000, agent, 7));
        let graph = Arc::new(VectorGraph::build(&vectors));
        let view = graph.view(&vectors).unwrap();
        assert!(!view.is_stale());
        let queries = snapshot(50, agent, 99);
        let mut same = 0;
        for (_, _, query) in &queries {
            let exact = keys(&vectors.scan(&[Scope::Org], query, None, 10));
            let approx = view
                .search(&vectors, &[Scope::Org], query, None, 10)
                .unwrap();
            assert_eq!(approx.len(), 10);
            same += approx.iter().filter(|(key, _)| exact.contains(key)).count();
        }
        // Recall@10 of an M 16 graph on 2,000 points is near 1.
        assert!(same >= 450, "recall {same}/500");
        // The scope filter holds: the agent's points only.
        let scope = [Scope::Agent(agent)];
        let agents = view
            .search(&vectors, &scope, &queries[0].2, None, 10)
            .unwrap();
        let exact = keys(&vectors.scan(&scope, &queries[0].2, None, 10));
        assert!(agents.iter().filter(|(key, _)| exact.contains(key)).count() >= 8);
        assert!(
            agents
                .iter()
                .all(|(key, _)| index_of(key).is_multiple_of(5))
        );
    }

    #[test]
    fn the_distance_is_never_negative() {
        // Rounded up components: a dot product past 127².
        let v = [90i8, 90];
        assert!(cosine(&v, &v) > 1.0);
        assert_eq!(QuantizedCosine.eval(&v, &v), 0.0);
    }

    #[test]
    fn a_later_snapshot_hides_removed_points_and_scans_new_ones() {
        let agent = AgentId::new();
        let first = snapshot(200, agent, 3);
        let graph = Arc::new(VectorGraph::build(&OrgVectors::new("m", 32, first.clone())));
        // One removed, one added: the new one is found exactly, the
        // removed one never.
        let mut later = first.clone();
        let removed = later.remove(10);
        // (21: an org point; every fifth is the agent's.)
        let added = (vec![0xee; 28], Scope::Org, first[21].2.clone());
        later.push(added.clone());
        let vectors = OrgVectors::new("m", 32, later);
        let view = graph.view(&vectors).unwrap();
        assert!(!view.is_stale());
        let hits = view
            .search(&vectors, &[Scope::Org], &added.2, None, 2)
            .unwrap();
        let keys: Vec<&Vec<u8>> = hits.iter().map(|h| &h.0).collect();
        assert!(keys.contains(&&added.0) && keys.contains(&&first[21].0));
        let hits = view
            .search(&vectors, &[Scope::Org], &removed.2, None, 5)
            .unwrap();
        assert!(hits.iter().all(|h| h.0 != removed.0));
        // A quarter removed: rebuilt.
        let shrunk = OrgVectors::new("m", 32, first[..150].to_vec());
        assert!(graph.view(&shrunk).unwrap().is_stale());
        // Another model: no view.
        assert!(graph.view(&OrgVectors::new("n", 32, first)).is_none());
    }
}
