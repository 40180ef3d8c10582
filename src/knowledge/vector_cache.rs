//! The vectors searches scan (`knowledge.md` §3): each org's vectors of
//! its current model, loaded from the store into one flat array and kept
//! in an LRU by org within `vector_cache_mb`. An org's entry is reloaded
//! when the embedder has written since (at most once a second: a search
//! may miss vectors a second old, never find a deleted document's, which
//! the store's check drops). An org's HNSW graph (`vector_graph`) lives
//! in its entry and counts against the same budget; one is built at a
//! time, on a thread of its own.

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use confer_actors::{OrgId, StoreError};
use lru::LruCache;

use super::vector_graph::{GraphView, VectorGraph};
pub use super::vectors::OrgVectors;

/// How stale an entry may be while the embedder writes.
const RELOAD_EVERY: Duration = Duration::from_secs(1);
/// Orgs the cache tracks at most (their bytes bound it first).
const MAX_ORGS: usize = 4_096;

struct Entry {
    vectors: Arc<OrgVectors>,
    /// The org's graph against `vectors`, once built.
    graph: Option<Arc<GraphView>>,
    /// The org's write count when it was loaded.
    generation: u64,
    loaded: Instant,
}

impl Entry {
    fn bytes(&self) -> usize {
        self.vectors.bytes()
            + self
                .graph
                .as_ref()
                .map_or(0, |view| view.graph().bytes() + view.bytes())
    }
}

/// An org's vectors, and its graph when one is built and current enough.
pub struct Loaded {
    pub vectors: Arc<OrgVectors>,
    pub graph: Option<Arc<GraphView>>,
}

struct Inner {
    entries: LruCache<OrgId, Entry>,
    bytes: usize,
    /// Writes per org (bumped by the embedder).
    generations: LruCache<OrgId, u64>,
    /// Whether a graph is being built (one at a time).
    building: bool,
}

/// The cache.
pub struct VectorCache {
    inner: Mutex<Inner>,
    budget: usize,
}

impl VectorCache {
    /// A cache of at most `budget` bytes.
    pub fn new(budget: usize) -> Self {
        let orgs = NonZeroUsize::new(MAX_ORGS).unwrap_or(NonZeroUsize::MIN);
        Self {
            inner: Mutex::new(Inner {
                entries: LruCache::new(orgs),
                bytes: 0,
                generations: LruCache::new(orgs),
                building: false,
            }),
            budget,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding it leaves a consistent cache behind.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The org's vectors changed (written, pruned, dropped).
    pub fn changed(&self, org: OrgId) {
        let mut inner = self.lock();
        let next = inner.generations.get(&org).copied().unwrap_or(0) + 1;
        inner.generations.put(org, next);
    }

    /// The org's vectors of `model` with `dims` components, from the cache
    /// or `load`ed (and kept when they fit), with the org's graph if it
    /// has one.
    pub fn get_or_load(
        &self,
        org: OrgId,
        model: &str,
        dims: usize,
        load: impl FnOnce() -> Result<OrgVectors, StoreError>,
    ) -> Result<Loaded, StoreError> {
        let old_graph = {
            let mut inner = self.lock();
            let generation = inner.generations.get(&org).copied().unwrap_or(0);
            match inner.entries.get(&org) {
                Some(entry)
                    if entry.vectors.model == model
                        && entry.vectors.dims == dims
                        && (entry.generation == generation
                            || entry.loaded.elapsed() < RELOAD_EVERY) =>
                {
                    return Ok(Loaded {
                        vectors: Arc::clone(&entry.vectors),
                        graph: entry.graph.clone(),
                    });
                }
                Some(entry) => entry.graph.as_ref().map(|view| Arc::clone(view.graph())),
                None => None,
            }
        };
        let generation = self.lock().generations.get(&org).copied().unwrap_or(0);
        let vectors = Arc::new(load()?);
        // The graph carried over to the new snapshot (outside the lock: a
        // pass over every key).
        let graph = old_graph
            .and_then(|graph| graph.view(&vectors))
            .map(Arc::new);
        let entry = Entry {
            vectors: Arc::clone(&vectors),
            graph: graph.clone(),
            generation,
            loaded: Instant::now(),
        };
        self.keep(org, entry);
        Ok(Loaded { vectors, graph })
    }

    /// Puts `entry` in the cache in place of the org's, evicting the
    /// least recently used orgs to make room; one bigger than the budget
    /// is not kept.
    fn keep(&self, org: OrgId, entry: Entry) {
        let mut inner = self.lock();
        if let Some(old) = inner.entries.pop(&org) {
            inner.bytes -= old.bytes();
        }
        let size = entry.bytes();
        if size > self.budget {
            return;
        }
        while inner.bytes + size > self.budget {
            let Some((_, evicted)) = inner.entries.pop_lru() else {
                break;
            };
            inner.bytes -= evicted.bytes();
        }
        inner.bytes += size;
        if let Some((_, evicted)) = inner.entries.push(org, entry) {
            inner.bytes -= evicted.bytes();
        }
    }

    /// Starts building the org's graph from `vectors` on a thread of its
    /// own, unless one is being built or it would not fit the budget
    /// beside them. The graph joins the org's entry when done (if the
    /// entry is still of the same model).
    pub fn build_graph(self: &Arc<Self>, org: OrgId, vectors: Arc<OrgVectors>) {
        let needed = vectors.bytes() + VectorGraph::estimated_bytes(vectors.len(), vectors.dims);
        {
            let mut inner = self.lock();
            if inner.building || needed > self.budget {
                return;
            }
            inner.building = true;
        }
        let cache = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("knowledge-graph".into())
            .spawn(move || {
                let _building = Building(&cache);
                let started = Instant::now();
                let graph = Arc::new(VectorGraph::build(&vectors));
                tracing::info!(
                    %org, points = graph.len(), took_ms = started.elapsed().as_millis() as u64,
                    "knowledge vector graph built"
                );
                cache.install(org, &graph);
            });
        if let Err(error) = spawned {
            tracing::error!(%error, "starting a knowledge graph build failed");
            self.lock().building = false;
        }
    }

    /// Adds `graph` to the org's entry, seen from the entry's vectors.
    fn install(&self, org: OrgId, graph: &Arc<VectorGraph>) {
        let current = self
            .lock()
            .entries
            .peek(&org)
            .map(|entry| (Arc::clone(&entry.vectors), entry.generation, entry.loaded));
        let Some((vectors, generation, loaded)) = current else {
            return;
        };
        let Some(view) = graph.view(&vectors) else {
            return;
        };
        self.keep(
            org,
            Entry {
                vectors,
                graph: Some(Arc::new(view)),
                generation,
                loaded,
            },
        );
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }
}

/// Marks the end of a graph build, however it ends.
struct Building<'a>(&'a VectorCache);

impl Drop for Building<'_> {
    fn drop(&mut self) {
        self.0.lock().building = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::Scope;

    fn vectors(n: usize) -> OrgVectors {
        let found = (0..n)
            .map(|i| (vec![i as u8; 28], Scope::Org, vec![i as i8, 1, 0, 0]))
            .collect();
        OrgVectors::new("m", 4, found)
    }

    #[test]
    fn the_cache_stays_within_its_budget_and_reloads_after_a_change() {
        let one = vectors(10).bytes();
        let cache = VectorCache::new(one * 2);
        let (a, b, c) = (OrgId::new(), OrgId::new(), OrgId::new());
        let mut loads = 0;
        for org in [a, b, a, c] {
            cache
                .get_or_load(org, "m", 4, || {
                    loads += 1;
                    Ok(vectors(10))
                })
                .unwrap();
        }
        // a cached, b loaded, a from the cache, c evicts b.
        assert_eq!(loads, 3);
        assert!(cache.bytes() <= one * 2);
        // Too big to keep: answered, not kept.
        cache
            .get_or_load(OrgId::new(), "m", 4, || Ok(vectors(100)))
            .unwrap();
        assert!(cache.bytes() <= one * 2);
        // Written since, and more than a second ago: loaded again.
        cache.changed(a);
        {
            let mut inner = cache.lock();
            if let Some(entry) = inner.entries.get_mut(&a) {
                entry.loaded -= RELOAD_EVERY;
            }
        }
        let mut reloaded = false;
        cache
            .get_or_load(a, "m", 4, || {
                reloaded = true;
                Ok(vectors(10))
            })
            .unwrap();
        assert!(reloaded);
    }

    #[test]
    fn the_cache_tracks_at_most_max_orgs() {
        let cache = VectorCache::new(usize::MAX);
        let first = OrgId::new();
        cache.changed(first);
        cache.get_or_load(first, "m", 4, || Ok(vectors(1))).unwrap();
        for _ in 0..MAX_ORGS {
            let org = OrgId::new();
            cache.changed(org);
            cache.get_or_load(org, "m", 4, || Ok(vectors(1))).unwrap();
        }
        let inner = cache.lock();
        assert_eq!(inner.entries.len(), MAX_ORGS);
        assert_eq!(inner.generations.len(), MAX_ORGS);
        assert!(!inner.entries.contains(&first), "the least recent went");
        assert_eq!(inner.bytes, vectors(1).bytes() * MAX_ORGS);
    }
}
