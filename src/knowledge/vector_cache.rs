//! The vectors searches scan (`knowledge.md` §3): each org's vectors of
//! its current model, loaded from the store into one flat array and kept
//! in an LRU by org within `vector_cache_mb`. An org's entry is reloaded
//! when the embedder has written since (at most once a second: a search
//! may miss vectors a second old, never find a deleted document's, which
//! the store's check drops).

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use confer_actors::{OrgId, StoreError};
use lru::LruCache;

use super::Scope;
use super::vectors::cosine;

/// How stale an entry may be while the embedder writes.
const RELOAD_EVERY: Duration = Duration::from_secs(1);
/// Orgs the cache tracks at most (their bytes bound it first).
const MAX_ORGS: usize = 4_096;

/// An org's vectors of one model: chunk keys, scopes and components.
pub struct OrgVectors {
    pub model: String,
    pub dims: usize,
    keys: Vec<Vec<u8>>,
    scopes: Vec<Scope>,
    components: Vec<i8>,
}

impl OrgVectors {
    /// Packs `found` (chunk key, scope, components of `dims`).
    pub fn new(model: &str, dims: usize, found: Vec<(Vec<u8>, Scope, Vec<i8>)>) -> Self {
        let mut vectors = Self {
            model: model.to_owned(),
            dims,
            keys: Vec::with_capacity(found.len()),
            scopes: Vec::with_capacity(found.len()),
            components: Vec::with_capacity(found.len() * dims),
        };
        for (key, scope, components) in found {
            if components.len() == dims {
                vectors.keys.push(key);
                vectors.scopes.push(scope);
                vectors.components.extend_from_slice(&components);
            }
        }
        vectors
    }

    /// What the entry holds, in bytes.
    pub fn bytes(&self) -> usize {
        self.components.len() + self.keys.len() * (28 + std::mem::size_of::<Scope>() + 24)
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The best `limit` of `scopes` by cosine with `query` (at least
    /// `least`): (chunk key, cosine), best first.
    pub fn scan(
        &self,
        scopes: &[Scope],
        query: &[i8],
        least: Option<f32>,
        limit: usize,
    ) -> Vec<(Vec<u8>, f32)> {
        if query.len() != self.dims || self.dims == 0 {
            return Vec::new();
        }
        let mut scored: Vec<(usize, f32)> = self
            .components
            .chunks_exact(self.dims)
            .enumerate()
            .filter(|(i, _)| scopes.contains(&self.scopes[*i]))
            .map(|(i, v)| (i, cosine(v, query)))
            .filter(|(_, score)| least.is_none_or(|least| *score >= least))
            .collect();
        let by_score = |a: &(usize, f32), b: &(usize, f32)| {
            b.1.total_cmp(&a.1)
                .then_with(|| self.keys[a.0].cmp(&self.keys[b.0]))
        };
        if scored.len() > limit {
            scored.select_nth_unstable_by(limit, by_score);
            scored.truncate(limit);
        }
        scored.sort_by(by_score);
        scored
            .into_iter()
            .map(|(i, score)| (self.keys[i].clone(), score))
            .collect()
    }
}

struct Entry {
    vectors: Arc<OrgVectors>,
    /// The org's write count when it was loaded.
    generation: u64,
    loaded: Instant,
}

struct Inner {
    entries: LruCache<OrgId, Entry>,
    bytes: usize,
    /// Writes per org (bumped by the embedder).
    generations: LruCache<OrgId, u64>,
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
    /// or `load`ed (and kept when they fit).
    pub fn get_or_load(
        &self,
        org: OrgId,
        model: &str,
        dims: usize,
        load: impl FnOnce() -> Result<OrgVectors, StoreError>,
    ) -> Result<Arc<OrgVectors>, StoreError> {
        {
            let mut inner = self.lock();
            let generation = inner.generations.get(&org).copied().unwrap_or(0);
            if let Some(entry) = inner.entries.get(&org)
                && entry.vectors.model == model
                && entry.vectors.dims == dims
                && (entry.generation == generation || entry.loaded.elapsed() < RELOAD_EVERY)
            {
                return Ok(Arc::clone(&entry.vectors));
            }
        }
        let generation = self.lock().generations.get(&org).copied().unwrap_or(0);
        let vectors = Arc::new(load()?);
        let mut inner = self.lock();
        if let Some(old) = inner.entries.pop(&org) {
            inner.bytes -= old.vectors.bytes();
        }
        let size = vectors.bytes();
        if size <= self.budget {
            while inner.bytes + size > self.budget {
                let Some((_, evicted)) = inner.entries.pop_lru() else {
                    break;
                };
                inner.bytes -= evicted.vectors.bytes();
            }
            inner.bytes += size;
            if let Some((_, evicted)) = inner.entries.push(
                org,
                Entry {
                    vectors: Arc::clone(&vectors),
                    generation,
                    loaded: Instant::now(),
                },
            ) {
                inner.bytes -= evicted.vectors.bytes();
            }
        }
        Ok(vectors)
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vectors(n: usize) -> OrgVectors {
        let found = (0..n)
            .map(|i| (vec![i as u8; 28], Scope::Org, vec![i as i8, 1, 0, 0]))
            .collect();
        OrgVectors::new("m", 4, found)
    }

    #[test]
    fn the_scan_keeps_the_best_of_the_scopes() {
        let mut found: Vec<(Vec<u8>, Scope, Vec<i8>)> = vec![
            (vec![1; 28], Scope::Org, vec![127, 0]),
            (vec![2; 28], Scope::Org, vec![0, 127]),
            (
                vec![3; 28],
                Scope::Agent(confer_actors::AgentId::new()),
                vec![127, 0],
            ),
        ];
        found.push((vec![4; 28], Scope::Org, vec![90, 90]));
        let packed = OrgVectors::new("m", 2, found);
        let best = packed.scan(&[Scope::Org], &[127, 0], None, 2);
        assert_eq!(best.len(), 2);
        assert_eq!(best[0].0, vec![1; 28]);
        assert_eq!(best[1].0, vec![4; 28]);
        assert!(packed.scan(&[Scope::Org], &[127, 0], Some(0.99), 5).len() == 1);
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
}
