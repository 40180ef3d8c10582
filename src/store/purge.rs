//! The background purge of deleted threads.
//!
//! A thread delete leaves a marker in `deleted_threads` (see `threads`). The
//! [`Purger`] then removes the thread's history, context, their value files,
//! plans and participants in batches of [`PURGE_BATCH`] keys and drops the marker
//! last, so a purge cut short by a crash resumes at the next start from the
//! markers alone (no sweep of the store). Usage records and analytics
//! aggregates outlive the thread; its traces go with it.
//!
//! The same worker rewrites a deleted project's threads, agents and runners
//! with no project (`projects::detach`), and removes the days of traces past their retention
//! (`traces`) at start and every [`SWEEP_INTERVAL`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use confer_actors::{Participant, StoreError, ThreadId};

use super::codec::decode;
use super::threads::DeletedThread;
use super::{SledStore, engine, keys};

/// Keys removed per batch by the purge.
pub const PURGE_BATCH: usize = 1000;

/// How often traces past their retention are swept.
pub const SWEEP_INTERVAL: Duration = Duration::from_secs(3600);

impl SledStore {
    /// The threads whose purge is not finished.
    pub fn pending_purges(&self) -> Result<Vec<ThreadId>, StoreError> {
        self.deleted_threads
            .iter()
            .keys()
            .map(|key| {
                let key = key.map_err(engine)?;
                let bytes: [u8; 16] = key
                    .as_ref()
                    .try_into()
                    .map_err(|_| StoreError::Codec("deleted-thread key".into()))?;
                Ok(ThreadId::from_bytes(bytes))
            })
            .collect()
    }

    /// Removes up to `batch` keys of a deleted thread; returns how many were
    /// removed (0: nothing was left, and the marker is gone).
    pub fn purge_step(&self, id: ThreadId, batch: usize) -> Result<usize, StoreError> {
        let _writing = self.gate.writing();
        let Some(marker) = Self::get::<DeletedThread>(&self.deleted_threads, id.as_bytes())? else {
            return Ok(0);
        };
        // Delegated children first (each deleted, so purged in turn), then
        // participants: each also has a `threads_by_user` entry.
        let mut removed = self.delete_children(marker.org_id, id, batch)?;
        let mut people = sled::Batch::default();
        let mut listings = sled::Batch::default();
        for entry in self
            .participants
            .scan_prefix(id.as_bytes())
            .take(batch.saturating_sub(removed))
        {
            let (key, value) = entry.map_err(engine)?;
            let participant: Participant = decode(&value)?;
            let prefix = keys::user_threads(marker.org_id, marker.agent_id, &participant.user_id);
            listings.remove(keys::timeline(
                &prefix,
                keys::micros(marker.created_at),
                id.as_bytes(),
            ));
            people.remove(key);
            removed += 1;
        }
        if removed > 0 {
            self.threads_by_user.apply_batch(listings).map_err(engine)?;
            self.participants.apply_batch(people).map_err(engine)?;
            return Ok(removed);
        }
        // Plans, and the thread's knowledge documents (their purge follows).
        removed = self.purge_plans(marker.org_id, id, batch)?
            + self.delete_scope_documents(marker.org_id, crate::knowledge::Scope::Thread(id))?;
        if removed > 0 {
            return Ok(removed);
        }
        removed = self.remove_thread_traces(id, marker.created_at, batch)?;
        if removed > 0 {
            return Ok(removed);
        }
        for (tree, prefix) in [
            (&self.messages, id.as_bytes().as_slice()),
            (&self.context, id.as_bytes().as_slice()),
            (&self.idempotency, id.as_bytes().as_slice()),
        ] {
            let mut doomed = sled::Batch::default();
            for key in tree.scan_prefix(prefix).keys().take(batch) {
                doomed.remove(key.map_err(engine)?);
                removed += 1;
            }
            if removed > 0 {
                tree.apply_batch(doomed).map_err(engine)?;
                return Ok(removed);
            }
        }
        // The files last: a record removed above may have pointed at one.
        self.values.remove_thread(id)?;
        self.deleted_threads.remove(id.as_bytes()).map_err(engine)?;
        Ok(0)
    }

    /// Purges a deleted thread to the end.
    pub fn purge(&self, id: ThreadId) -> Result<(), StoreError> {
        while self.purge_step(id, PURGE_BATCH)? > 0 {}
        Ok(())
    }
}

struct PurgeSignal {
    pending: Mutex<bool>,
    wake: Condvar,
    stop: AtomicBool,
}

/// The background purge of deleted threads: a thread that works through the
/// markers, woken by each delete. The markers are its queue, so it needs no
/// memory beyond them and resumes after a restart.
pub struct Purger {
    signal: Arc<PurgeSignal>,
    worker: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Purger {
    /// A purger with no worker yet (see [`Purger::start`]).
    pub fn idle() -> Self {
        Self {
            signal: Arc::new(PurgeSignal {
                // Pending at start: markers left by an earlier run resume.
                pending: Mutex::new(true),
                wake: Condvar::new(),
                stop: AtomicBool::new(false),
            }),
            worker: Mutex::new(None),
        }
    }

    /// Starts the worker over `store` (held weakly: the worker never keeps
    /// the database open).
    pub fn start(&self, store: std::sync::Weak<SledStore>) -> std::io::Result<()> {
        let signal = Arc::clone(&self.signal);
        let handle = std::thread::Builder::new()
            .name("thread-purge".into())
            .spawn(move || purge_loop(&signal, &store))?;
        *self.worker.lock().unwrap_or_else(PoisonError::into_inner) = Some(handle);
        Ok(())
    }

    /// Signals that a marker was written.
    pub fn wake(&self) {
        *self
            .signal
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = true;
        self.signal.wake.notify_one();
    }
}

impl Drop for Purger {
    /// Stops the worker and waits for it (a purge in progress stops between
    /// two batches and resumes at the next start). The worker may itself
    /// drop the last handle of the store; it is then not waited for.
    fn drop(&mut self) {
        self.signal.stop.store(true, Ordering::SeqCst);
        self.signal.wake.notify_all();
        let handle = self
            .worker
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(handle) = handle
            && handle.thread().id() != std::thread::current().id()
        {
            let _ = handle.join();
        }
    }
}

/// Sweeps traces past the retention when [`SWEEP_INTERVAL`] has passed
/// since the `last` sweep, or the retention changed since (or none ran).
fn sweep_due_traces(store: &SledStore, last: &mut Option<(std::time::Instant, chrono::TimeDelta)>) {
    let retention = store.trace_retention();
    if last.is_some_and(|(at, kept)| at.elapsed() < SWEEP_INTERVAL && kept == retention) {
        return;
    }
    *last = Some((std::time::Instant::now(), retention));
    let cutoff = chrono::Utc::now() - retention;
    match store.sweep_traces(cutoff) {
        Ok(0) => {}
        Ok(removed) => tracing::info!(removed, "traces past their retention removed"),
        Err(error) => tracing::error!(%error, "sweeping old traces failed"),
    }
}

/// Runs the detach of every deleted project (`projects::detach`) to its
/// end; `false` when told to stop.
fn detach_projects(signal: &PurgeSignal, store: &SledStore) -> bool {
    let markers = match store.pending_detaches() {
        Ok(markers) => markers,
        Err(error) => {
            tracing::error!(%error, "listing deleted projects failed");
            return true;
        }
    };
    for marker in markers {
        loop {
            if signal.stop.load(Ordering::SeqCst) {
                return false;
            }
            match store.detach_step(marker.org_id, marker.project_id, PURGE_BATCH) {
                Ok(0) => break,
                Ok(_) => {}
                Err(error) => {
                    tracing::error!(%error, project = %marker.project_id, "project detach failed; retrying later");
                    std::thread::sleep(Duration::from_secs(1));
                    *signal
                        .pending
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner) = true;
                    break;
                }
            }
        }
    }
    true
}

fn purge_loop(signal: &PurgeSignal, store: &std::sync::Weak<SledStore>) {
    let mut last_sweep = None;
    loop {
        {
            let mut pending = signal
                .pending
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let began = std::time::Instant::now();
            while !*pending && !signal.stop.load(Ordering::SeqCst) {
                let timeout = SWEEP_INTERVAL.saturating_sub(began.elapsed());
                let (guard, result) = signal
                    .wake
                    .wait_timeout(pending, timeout)
                    .unwrap_or_else(PoisonError::into_inner);
                pending = guard;
                if result.timed_out() {
                    break;
                }
            }
            *pending = false;
        }
        if signal.stop.load(Ordering::SeqCst) {
            return;
        }
        let Some(store) = store.upgrade() else { return };
        sweep_due_traces(&store, &mut last_sweep);
        if !detach_projects(signal, &store) {
            return;
        }
        let ids = match store.pending_purges() {
            Ok(ids) => ids,
            Err(error) => {
                tracing::error!(%error, "listing deleted threads failed");
                continue;
            }
        };
        for id in ids {
            loop {
                if signal.stop.load(Ordering::SeqCst) {
                    return;
                }
                match store.purge_step(id, PURGE_BATCH) {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(error) => {
                        tracing::error!(%error, thread = %id, "thread purge failed; retrying later");
                        std::thread::sleep(Duration::from_secs(1));
                        *signal
                            .pending
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner) = true;
                        break;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "purge_tests.rs"]
mod tests;
