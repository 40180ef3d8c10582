//! Group commit: concurrent callers of `flush` share one fsync.
//!
//! A caller takes a ticket (a number that grows with each request) and waits
//! until a flush that *started after* its ticket was taken has completed. One
//! flusher thread runs `sled::Db::flush` over and over while tickets are
//! outstanding; every ticket taken before a flush starts is covered by it, so a
//! burst of N writers costs one or two fsyncs rather than N.
//!
//! A flush is `sled::Db::flush` followed by `fdatasync` of sled's log file.
//! On Linux sled makes its log durable with `sync_file_range`, which neither
//! writes the file's metadata (a log that grew into new blocks) nor flushes
//! the device's write cache, so a power loss could take back writes that
//! were acknowledged; its own `fsync` runs only every 500 ms.

use std::fs::File;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use confer_actors::StoreError;
use tokio::sync::watch;

/// The file sled 0.34 keeps its log (and so every write) in.
pub const LOG_FILE: &str = "db";

#[derive(Clone, Copy, Debug, Default)]
struct Progress {
    /// Highest ticket known durable.
    flushed: u64,
    /// Highest ticket whose flush failed.
    failed: u64,
}

struct Shared {
    requested: Mutex<u64>,
    wake: Condvar,
    progress: watch::Sender<Progress>,
    stop: AtomicBool,
}

/// The group-commit flusher of one sled database.
pub struct GroupCommit {
    shared: Arc<Shared>,
    /// Joined on drop: the thread holds a handle to the database (and so its
    /// file lock) until it exits.
    worker: Option<std::thread::JoinHandle<()>>,
}

impl GroupCommit {
    /// Starts the flusher thread for `db`, whose log file is `log`.
    pub fn start(db: sled::Db, log: File) -> std::io::Result<Self> {
        let shared = Arc::new(Shared {
            requested: Mutex::new(0),
            wake: Condvar::new(),
            progress: watch::Sender::new(Progress::default()),
            stop: AtomicBool::new(false),
        });
        let state = Arc::clone(&shared);
        let worker = std::thread::Builder::new()
            .name("store-flusher".into())
            .spawn(move || flusher(&state, &db, &log))?;
        Ok(Self {
            shared,
            worker: Some(worker),
        })
    }

    /// Resolves once every write made before this call is on disk.
    pub fn flush(&self) -> impl Future<Output = Result<(), StoreError>> + Send + 'static {
        let mut progress = self.shared.progress.subscribe();
        let ticket = {
            let mut requested = self
                .shared
                .requested
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            *requested += 1;
            *requested
        };
        self.shared.wake.notify_one();
        async move {
            let reached = progress
                .wait_for(|p| p.flushed >= ticket || p.failed >= ticket)
                .await
                .map_err(|_| StoreError::Engine("flusher stopped".into()))?;
            if reached.flushed >= ticket {
                Ok(())
            } else {
                Err(StoreError::Engine("flush failed".into()))
            }
        }
    }
}

impl Drop for GroupCommit {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.shared.wake.notify_all();
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

/// Makes everything written to `db` durable (see the module comment).
pub fn flush_durably(db: &sled::Db, log: &File) -> Result<(), StoreError> {
    db.flush().map_err(|e| StoreError::Engine(e.to_string()))?;
    log.sync_data()
        .map_err(|e| StoreError::Engine(format!("syncing the store's log: {e}")))
}

fn flusher(shared: &Shared, db: &sled::Db, log: &File) {
    let mut done = 0u64;
    loop {
        let target = {
            let mut requested = shared
                .requested
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            while *requested <= done && !shared.stop.load(Ordering::SeqCst) {
                requested = shared
                    .wake
                    .wait(requested)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            if *requested <= done {
                return; // stopping, nothing outstanding
            }
            *requested
        };
        match flush_durably(db, log) {
            Ok(()) => shared.progress.send_modify(|p| p.flushed = target),
            Err(error) => {
                tracing::error!(%error, "store flush failed");
                shared.progress.send_modify(|p| p.failed = target);
            }
        }
        done = target;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn concurrent_flushes_all_complete() {
        let dir = tempfile::tempdir().unwrap();
        let db = sled::open(dir.path()).unwrap();
        let log = File::open(dir.path().join(LOG_FILE)).unwrap();
        let commit = GroupCommit::start(db.clone(), log).unwrap();
        let mut waits = Vec::new();
        for i in 0..64u32 {
            db.insert(i.to_be_bytes(), &[1]).unwrap();
            waits.push(tokio::spawn(commit.flush()));
        }
        for wait in waits {
            wait.await.unwrap().unwrap();
        }
    }

    #[test]
    fn the_database_can_be_reopened_as_soon_as_the_store_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        for _ in 0..20 {
            let store = crate::store::SledStore::open(dir.path()).unwrap();
            drop(store);
        }
    }
}
