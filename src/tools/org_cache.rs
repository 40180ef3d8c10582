//! [`OrgCache`]: what turns read about an org's server-side tools (its
//! webhook definitions, its MCP servers and their attachments), kept in
//! memory so that a turn does not go to the store (and its blocking pool)
//! for them.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use confer_actors::OrgId;

/// Orgs whose entries are kept in memory at most.
pub const MAX_CACHED_ORGS: usize = 4096;

/// One value per org, as last read from the store. A write forgets its
/// org's entry; a read that raced a write is not kept (the generation
/// moved); past [`MAX_CACHED_ORGS`] the cache starts over.
pub struct OrgCache<V> {
    entries: std::sync::Mutex<HashMap<OrgId, Arc<V>>>,
    generation: AtomicU64,
}

impl<V> Default for OrgCache<V> {
    fn default() -> Self {
        Self {
            entries: std::sync::Mutex::default(),
            generation: AtomicU64::new(0),
        }
    }
}

impl<V> OrgCache<V> {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<OrgId, Arc<V>>> {
        // A panic while holding it leaves a plain map behind.
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The org's value, if kept.
    pub fn get(&self, org: OrgId) -> Option<Arc<V>> {
        self.lock().get(&org).cloned()
    }

    /// The generation to pass to [`Self::put`] after reading the store.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Keeps `value` for `org` unless a write came since `generation`.
    pub fn put(&self, org: OrgId, value: Arc<V>, generation: u64) {
        let mut entries = self.lock();
        if self.generation.load(Ordering::Acquire) != generation {
            return;
        }
        if entries.len() >= MAX_CACHED_ORGS && !entries.contains_key(&org) {
            entries.clear();
        }
        entries.insert(org, value);
    }

    /// Forgets `org`'s value (after a write to what it holds).
    pub fn forget(&self, org: OrgId) {
        let mut entries = self.lock();
        self.generation.fetch_add(1, Ordering::AcqRel);
        entries.remove(&org);
    }

    /// Orgs kept now.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no org is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(name: &str) -> Arc<Vec<String>> {
        Arc::new(vec![name.to_owned()])
    }

    #[test]
    fn a_read_that_raced_a_write_is_not_kept() {
        let cache = OrgCache::default();
        let org = OrgId::new();
        let before = cache.generation();
        cache.forget(org); // a write lands while the store is read
        cache.put(org, value("stale"), before);
        assert!(cache.get(org).is_none());
        let now = cache.generation();
        cache.put(org, value("fresh"), now);
        assert_eq!(cache.get(org).unwrap()[0], "fresh");
        cache.forget(org);
        assert!(cache.get(org).is_none());
    }

    #[test]
    fn the_cache_keeps_at_most_its_bound_of_orgs() {
        let cache = OrgCache::default();
        for _ in 0..MAX_CACHED_ORGS {
            cache.put(OrgId::new(), value("t"), cache.generation());
        }
        assert_eq!(cache.len(), MAX_CACHED_ORGS);
        let last = OrgId::new();
        cache.put(last, value("t"), cache.generation());
        assert_eq!(cache.len(), 1, "started over past the bound");
        assert!(cache.get(last).is_some());
    }
}
