//! The day aggregates of committed traces waiting for the next flush.
//!
//! A turn's contribution to its (org, day, agent, model) aggregate is added
//! here in memory as its trace commits; the group-commit flusher merges the
//! pending sums into the `trace_days` tree (sled's merge operator) just
//! before each flush. A burst of turns then costs one merge per aggregate
//! per flush instead of one per turn: a merge rewrites the whole ~2 KiB
//! aggregate, and per turn it cost more CPU than the rest of the trace.
//!
//! Durability is unchanged: a turn's answer is acknowledged only after a
//! flush that started after its commit, and that flush merges first. The map
//! is bounded: when [`MAX_PENDING`] aggregates wait, a new one is merged at
//! once instead of waiting.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use confer_actors::StoreError;

use super::engine;
use crate::observability::aggregate::DayAggregate;

/// Aggregates (distinct keys) held between two flushes at most.
pub const MAX_PENDING: usize = 4_096;

/// The pending day aggregates of one store, by `trace_days` key.
pub struct DayMerges {
    days: sled::Tree,
    pending: Mutex<HashMap<Vec<u8>, DayAggregate>>,
}

impl DayMerges {
    /// The pending merges into `days` (whose merge operator is set).
    pub fn new(days: sled::Tree) -> Self {
        Self {
            days,
            pending: Mutex::new(HashMap::new()),
        }
    }

    /// Adds a turn's contribution to the aggregate at `key`.
    pub fn add(&self, key: Vec<u8>, contribution: &DayAggregate) -> Result<(), StoreError> {
        let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(day) = pending.get_mut(&key) {
            day.merge(contribution);
            return Ok(());
        }
        if pending.len() < MAX_PENDING {
            pending.insert(key, contribution.clone());
            return Ok(());
        }
        drop(pending);
        self.merge(&key, contribution)
    }

    /// Merges every pending aggregate into the tree (the flusher calls this
    /// before each flush).
    pub fn drain(&self) -> Result<(), StoreError> {
        let pending =
            std::mem::take(&mut *self.pending.lock().unwrap_or_else(PoisonError::into_inner));
        for (key, day) in &pending {
            self.merge(key, day)?;
        }
        Ok(())
    }

    fn merge(&self, key: &[u8], day: &DayAggregate) -> Result<(), StoreError> {
        self.days.merge(key, day.encode()).map_err(engine)?;
        Ok(())
    }

    /// How many aggregates wait.
    #[cfg(test)]
    fn waiting(&self) -> usize {
        self.pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observability::aggregate::merge_operator;

    fn turns(n: u64) -> DayAggregate {
        DayAggregate {
            turns: n,
            ..DayAggregate::default()
        }
    }

    fn stored(days: &sled::Tree, key: &[u8]) -> Option<u64> {
        days.get(key)
            .unwrap()
            .map(|v| DayAggregate::decode(&v).unwrap().turns)
    }

    fn tree() -> sled::Tree {
        let db = sled::Config::new().temporary(true).open().unwrap();
        let days = db.open_tree("days").unwrap();
        days.set_merge_operator(merge_operator);
        days
    }

    #[test]
    fn sums_wait_for_the_drain_then_merge_once() {
        let days = tree();
        let merges = DayMerges::new(days.clone());
        for _ in 0..3 {
            merges.add(b"a".to_vec(), &turns(1)).unwrap();
        }
        merges.add(b"b".to_vec(), &turns(5)).unwrap();
        assert_eq!(stored(&days, b"a"), None, "nothing merged before the drain");
        merges.drain().unwrap();
        assert_eq!(stored(&days, b"a"), Some(3));
        assert_eq!(stored(&days, b"b"), Some(5));
        assert_eq!(merges.waiting(), 0);
        // The next drain adds to what is stored.
        merges.add(b"a".to_vec(), &turns(2)).unwrap();
        merges.drain().unwrap();
        assert_eq!(stored(&days, b"a"), Some(5));
    }

    #[test]
    fn past_the_bound_a_new_aggregate_merges_at_once() {
        let days = tree();
        let merges = DayMerges::new(days.clone());
        for i in 0..MAX_PENDING as u32 {
            merges.add(i.to_be_bytes().to_vec(), &turns(1)).unwrap();
        }
        assert_eq!(merges.waiting(), MAX_PENDING);
        merges.add(b"late".to_vec(), &turns(7)).unwrap();
        assert_eq!(merges.waiting(), MAX_PENDING, "the map did not grow");
        assert_eq!(stored(&days, b"late"), Some(7), "merged at once");
        // A key already waiting still takes more sums without a merge.
        merges.add(0u32.to_be_bytes().to_vec(), &turns(1)).unwrap();
        assert_eq!(stored(&days, &0u32.to_be_bytes()), None);
        merges.drain().unwrap();
        assert_eq!(stored(&days, &0u32.to_be_bytes()), Some(2));
    }
}
