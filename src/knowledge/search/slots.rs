//! The search slots (`knowledge.md` §3): searches run on the blocking
//! pool, at most `search_threads` at once, outside the store's blocking
//! slots; 64 more may wait, others are refused (`SEARCH_BUSY`); each gives
//! up after 5 s, waiting included.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::Semaphore;

use super::SearchError;

/// Searches that may wait for a slot; more are refused (`SEARCH_BUSY`).
const MAX_WAITING: usize = 64;
/// How long a search may take, waiting included.
const SEARCH_DEADLINE: Duration = Duration::from_secs(5);

/// The slots.
pub(super) struct SearchSlots {
    slots: Arc<Semaphore>,
    threads: usize,
    /// Searches running or waiting for a slot.
    in_flight: AtomicUsize,
}

impl SearchSlots {
    pub(super) fn new(threads: usize) -> Self {
        Self {
            slots: Arc::new(Semaphore::new(threads.max(1))),
            threads: threads.max(1),
            in_flight: AtomicUsize::new(0),
        }
    }

    /// Runs `work` on the blocking pool in a search slot (at most
    /// `search_threads` at once, 64 more waiting, 5 s in all).
    pub(super) async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> Result<T, SearchError> + Send + 'static,
    ) -> Result<T, SearchError> {
        let _counted = InFlight::enter(&self.in_flight, self.threads + MAX_WAITING)
            .ok_or(SearchError::Busy)?;
        let run = async {
            let _slot = Arc::clone(&self.slots)
                .acquire_owned()
                .await
                .map_err(|_| SearchError::Busy)?;
            tokio::task::spawn_blocking(work)
                .await
                .map_err(|e| SearchError::Failed(e.to_string()))?
        };
        tokio::time::timeout(SEARCH_DEADLINE, run)
            .await
            .map_err(|_| SearchError::Busy)?
    }
}

/// A search counted in flight until it is dropped (answered, timed out,
/// or abandoned by its client).
struct InFlight<'a>(&'a AtomicUsize);

impl<'a> InFlight<'a> {
    fn enter(count: &'a AtomicUsize, bound: usize) -> Option<Self> {
        if count.fetch_add(1, Ordering::AcqRel) >= bound {
            count.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        Some(Self(count))
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn searches_past_the_bound_are_refused_until_one_ends() {
        let count = AtomicUsize::new(0);
        let first = InFlight::enter(&count, 2).expect("first");
        let _second = InFlight::enter(&count, 2).expect("second");
        assert!(InFlight::enter(&count, 2).is_none());
        drop(first);
        assert!(InFlight::enter(&count, 2).is_some());
    }
}
