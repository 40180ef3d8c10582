//! The API keys recently found by their secret's hash, so a request's key
//! is known without a hand-off to the blocking pool (issue 37 point 3).
//! Only the store fills and empties it: a key's delete forgets it in the
//! call that removes it, and a read that raced with a delete never puts
//! the deleted key back (the generation each delete bumps).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use chrono::{DateTime, Utc};
use confer_actors::ApiKeyId;

use super::records::ApiKey;

/// Keys kept at most; past it, one is dropped for each new one.
pub const MAX_CACHED_KEYS: usize = 10_000;

/// The cache (see the module comment).
#[derive(Default)]
pub struct KeyCache {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    by_hash: HashMap<[u8; 32], ApiKey>,
    /// Bumped by every forget.
    generation: u64,
}

impl KeyCache {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding it leaves a plain map behind.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The key of `hash`, when kept.
    pub fn get(&self, hash: &[u8; 32]) -> Option<ApiKey> {
        self.lock().by_hash.get(hash).cloned()
    }

    /// The generation to pass to [`KeyCache::insert`]: read before the
    /// store is.
    pub fn generation(&self) -> u64 {
        self.lock().generation
    }

    /// Keeps `key`, read from the store after `generation` was: unless a
    /// delete came since.
    pub fn insert(&self, hash: [u8; 32], key: ApiKey, generation: u64) {
        let mut inner = self.lock();
        if inner.generation != generation {
            return;
        }
        if inner.by_hash.len() >= MAX_CACHED_KEYS
            && !inner.by_hash.contains_key(&hash)
            && let Some(victim) = inner.by_hash.keys().next().copied()
        {
            inner.by_hash.remove(&victim);
        }
        inner.by_hash.insert(hash, key);
    }

    /// Forgets key `id` (deleted).
    pub fn forget(&self, id: ApiKeyId) {
        let mut inner = self.lock();
        inner.generation += 1;
        inner.by_hash.retain(|_, key| key.id != id);
    }

    /// Key `id` was used at `at`.
    pub fn touched(&self, id: ApiKeyId, at: DateTime<Utc>) {
        for key in self.lock().by_hash.values_mut() {
            if key.id == id {
                key.last_used_at = Some(at);
            }
        }
    }

    /// Keys kept now.
    pub fn len(&self) -> usize {
        self.lock().by_hash.len()
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
    use crate::store::records::KeyRole;
    use confer_actors::OrgId;

    fn key() -> ApiKey {
        ApiKey {
            id: ApiKeyId::new(),
            org_id: OrgId::new(),
            name: "k".into(),
            prefix: "cfr_".into(),
            role: KeyRole::Member,
            platform_admin: false,
            secret_sha256: String::new(),
            created_at: Utc::now(),
            last_used_at: None,
            rate_limit_rps: None,
            act_as_users: false,
        }
    }

    fn hash(n: usize) -> [u8; 32] {
        let mut hash = [0u8; 32];
        hash[..8].copy_from_slice(&(n as u64).to_be_bytes());
        hash
    }

    #[test]
    fn a_delete_wins_over_a_read_that_raced_it_and_the_bound_holds() {
        let cache = KeyCache::default();
        let k = key();
        let before = cache.generation();
        cache.forget(k.id); // deleted while the read ran
        cache.insert(hash(1), k.clone(), before);
        assert!(cache.get(&hash(1)).is_none());

        cache.insert(hash(1), k.clone(), cache.generation());
        assert_eq!(cache.get(&hash(1)).unwrap().id, k.id);
        let at = Utc::now();
        cache.touched(k.id, at);
        assert_eq!(cache.get(&hash(1)).unwrap().last_used_at, Some(at));
        cache.forget(k.id);
        assert!(cache.get(&hash(1)).is_none());

        for n in 0..MAX_CACHED_KEYS + 10 {
            cache.insert(hash(n), key(), cache.generation());
        }
        assert_eq!(cache.len(), MAX_CACHED_KEYS);
    }
}
