//! The publications visitors' requests name by slug, kept in memory
//! (`publishing.md` rule 11): at most [`CAPACITY`], least recently used
//! first out, and an entry dropped on each write of its publication.
//!
//! A reader that missed reads the store, then offers what it read; a write
//! that happened meanwhile would make that stale (an old generation still
//! accepting revoked tokens), so every write bumps an epoch and an offer
//! read before the bump is not kept.

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use confer_actors::OrgId;
use lru::LruCache;

use super::Publication;

/// Publications kept at most.
pub const CAPACITY: usize = 10_000;

/// Publications by slug.
pub struct SlugCache {
    entries: Mutex<LruCache<String, Publication>>,
    epoch: AtomicU64,
}

/// What a reader saw before reading the store: its offer is kept only if
/// no write happened since.
#[derive(Clone, Copy, Debug)]
pub struct Epoch(u64);

impl SlugCache {
    /// A cache of at most `capacity` publications.
    pub fn new(capacity: usize) -> Self {
        Self {
            entries: Mutex::new(LruCache::new(
                NonZeroUsize::new(capacity).unwrap_or(NonZeroUsize::MIN),
            )),
            epoch: AtomicU64::new(0),
        }
    }

    /// The publication of `slug` if kept, else the epoch to offer a read under.
    pub fn get(&self, slug: &str) -> Result<Publication, Epoch> {
        let epoch = Epoch(self.epoch.load(Ordering::Acquire));
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.get(slug).cloned().ok_or(epoch)
    }

    /// Keeps `publication`, read from the store under `epoch`, unless a
    /// write happened since.
    pub fn offer(&self, publication: &Publication, epoch: Epoch) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if self.epoch.load(Ordering::Acquire) == epoch.0 {
            entries.put(publication.slug.clone(), publication.clone());
        }
    }

    /// Drops `slug`'s entry: its publication was written.
    pub fn forget(&self, slug: &str) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        self.epoch.fetch_add(1, Ordering::AcqRel);
        entries.pop(slug);
    }

    /// Drops the entries of `org`'s publications: one of them was written
    /// on another node (`scale.md` §5), which names the org only. The
    /// entries dropped, as they were kept.
    pub fn forget_org(&self, org: OrgId) -> Vec<Publication> {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        self.epoch.fetch_add(1, Ordering::AcqRel);
        let stale: Vec<String> = entries
            .iter()
            .filter(|(_, publication)| publication.org_id == org)
            .map(|(slug, _)| slug.clone())
            .collect();
        stale
            .into_iter()
            .filter_map(|slug| entries.pop(&slug))
            .collect()
    }

    /// Publications kept.
    pub fn len(&self) -> usize {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use confer_actors::AgentId;

    fn publication(slug: &str) -> Publication {
        Publication::new(OrgId::new(), AgentId::new(), slug.into())
    }

    #[test]
    fn the_cache_is_bounded_and_forgets_on_writes() {
        let cache = SlugCache::new(2);
        for slug in ["a", "b", "c"] {
            let epoch = cache.get(slug).unwrap_err();
            cache.offer(&publication(slug), epoch);
        }
        assert_eq!(cache.len(), 2, "the least recently used went");
        assert!(cache.get("a").is_err());
        assert!(cache.get("c").is_ok());
        cache.forget("c");
        assert!(cache.get("c").is_err());
    }

    #[test]
    fn an_orgs_entries_go_together_and_no_others() {
        let cache = SlugCache::new(8);
        let mine = publication("a");
        let mut also_mine = publication("b");
        also_mine.org_id = mine.org_id;
        for kept in [&mine, &also_mine, &publication("c")] {
            let epoch = cache.get(&kept.slug).unwrap_err();
            cache.offer(kept, epoch);
        }
        let epoch = cache.get("d").unwrap_err();
        let dropped = cache.forget_org(mine.org_id);
        assert_eq!(dropped.len(), 2);
        assert!(cache.get("a").is_err() && cache.get("b").is_err());
        assert!(cache.get("c").is_ok(), "another org's entry stays");
        // A read from before the drop is not kept.
        cache.offer(&publication("d"), epoch);
        assert!(cache.get("d").is_err());
    }

    #[test]
    fn a_read_older_than_a_write_is_not_kept() {
        let cache = SlugCache::new(8);
        let epoch = cache.get("a").unwrap_err();
        // A write lands between the reader's store read and its offer.
        cache.forget("a");
        cache.offer(&publication("a"), epoch);
        assert!(cache.get("a").is_err());
    }
}
