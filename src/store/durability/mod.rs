//! Group commit: concurrent callers of `flush` share one fsync.
//!
//! A caller takes a ticket (a number that grows with each request) and waits
//! until a flush that *started after* its ticket was taken has completed. One
//! flusher thread runs `sled::Db::flush` over and over while tickets are
//! outstanding; every ticket taken before a flush starts is covered by it, so a
//! burst of N writers costs one or two fsyncs rather than N.
//!
//! A flush is `sled::Db::flush`, then `fsync` of every blob file written
//! since the last flush and of the blob directory, then `fdatasync` of sled's
//! log file. sled 0.34 only ever `sync_file_range`d each log buffer, which
//! neither writes the file's metadata (a log that grew into new blocks) nor
//! flushes the device's write cache, so a power loss could take back writes
//! that were acknowledged; its own `fsync` runs only every 500 ms. The
//! vendored sled no longer syncs per buffer at all (`vendor/sled/PATCHED.md`):
//! this `fdatasync` writes the log out once per flush.
//! Values over sled's blob threshold (about 128 KiB: a long message, a long
//! answer) go to files under `blobs/` that sled never syncs at all.
//!
//! Writes that are acknowledged only once durable (a turn's appends) can be
//! handed to the flusher itself ([`GroupCommit::submit`]): it makes every
//! queued write, then one flush covers them all, then each caller is told.
//! A turn's write then costs one hand-off to this thread instead of one to
//! the blocking pool and another to the flusher, and the writes of many
//! turns share one pass: sled serializes transactions on one database-wide
//! lock anyway. At most [`MAX_QUEUED_WRITES`] wait; past that `submit`
//! hands the write back and the caller makes it on the blocking pool.
//!
//! The flusher runs at a lower priority than the threads relaying tokens
//! ([`crate::thread_priority`]): when the core is busy its passes wait,
//! grow, and share their flush among more writes, instead of preempting a
//! token (1,000 paced streams on one core: the added inter-token p50 9 ms
//! at the same priority, under 3 ms below it; docs/performance-history.md).
//!
//! A failed flush poisons the store: the failed and every later flush
//! report `StoreError::Unavailable`, so nothing is acknowledged after it,
//! and [`GroupCommit::poisoned`] resolves so the server can stop and exit
//! non-zero for its supervisor to restart it.

mod sync;

pub use sync::{SyncedBlobs, flush_durably, move_into_place, remove_if_present};

use std::fs::File;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use confer_actors::StoreError;
use tokio::sync::watch;

/// The file sled 0.34 keeps its log (and so every write) in.
pub const LOG_FILE: &str = "db";
/// The directory of sled's blob files (values over its blob threshold).
pub const BLOB_DIR: &str = "blobs";

/// Writes that may wait for the flusher at once (see the module comment).
pub const MAX_QUEUED_WRITES: usize = 1_024;

/// A write the flusher makes before a flush, and whose caller it tells how
/// that flush ended.
pub trait QueuedWrite: Send {
    /// Makes the write; runs on the flusher thread, before the flush.
    fn write(&mut self);
    /// Told once the flush covering the write has ended (or, if the store
    /// failed first, without the write made).
    fn flushed(self: Box<Self>, result: Result<(), StoreError>);
}

#[derive(Clone, Debug, Default)]
struct Progress {
    /// Highest ticket known durable.
    flushed: u64,
    /// Set by the first failed flush; every ticket after it fails.
    poisoned: Option<String>,
}

/// What one flush does; a failure is final (see the module comment).
pub type FlushFn = Box<dyn Fn() -> Result<(), StoreError> + Send>;

/// What waits for the flusher.
#[derive(Default)]
struct Pending {
    /// Highest flush ticket taken.
    requested: u64,
    /// Writes to make before the next flush.
    writes: Vec<Box<dyn QueuedWrite>>,
    /// Set once the flusher has stopped (poisoned or dropped): writes are
    /// handed back.
    closed: bool,
}

struct Shared {
    pending: Mutex<Pending>,
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
    /// Starts the flusher thread for `db`, whose log file is `log` and whose
    /// blob files are in `blobs`; `before` runs at the start of each flush
    /// (the writes it makes are covered by that flush).
    pub fn start(
        db: sled::Db,
        log: File,
        blobs: PathBuf,
        before: FlushFn,
    ) -> std::io::Result<Self> {
        let synced = SyncedBlobs::default();
        Self::with_flush(Box::new(move || {
            before()?;
            flush_durably(&db, &log, &blobs, &synced).map(drop)
        }))
    }

    /// Starts the flusher thread around `flush` (tests inject failures here).
    pub fn with_flush(flush: FlushFn) -> std::io::Result<Self> {
        let shared = Arc::new(Shared {
            pending: Mutex::new(Pending::default()),
            wake: Condvar::new(),
            progress: watch::Sender::new(Progress::default()),
            stop: AtomicBool::new(false),
        });
        let state = Arc::clone(&shared);
        let worker = std::thread::Builder::new()
            .name("store-flusher".into())
            .spawn(move || {
                crate::thread_priority::yield_to_latency_work();
                flusher(&state, &flush)
            })?;
        Ok(Self {
            shared,
            worker: Some(worker),
        })
    }

    /// Resolves once every write made before this call is on disk.
    pub fn flush(&self) -> impl Future<Output = Result<(), StoreError>> + Send + 'static {
        let mut progress = self.shared.progress.subscribe();
        let ticket = {
            let mut pending = self.shared.lock();
            pending.requested += 1;
            pending.requested
        };
        self.shared.wake.notify_one();
        async move {
            let reached = progress
                .wait_for(|p| p.flushed >= ticket || p.poisoned.is_some())
                .await
                .map_err(|_| StoreError::Engine("flusher stopped".into()))?;
            match &reached.poisoned {
                Some(error) => Err(StoreError::Unavailable(error.clone())),
                None => Ok(()),
            }
        }
    }

    /// Queues `write` for the flusher (see the module comment); hands it
    /// back when [`MAX_QUEUED_WRITES`] already wait or the flusher has
    /// stopped, for the caller to make it another way.
    pub fn submit<W: QueuedWrite + 'static>(&self, write: W) -> Result<(), W> {
        {
            let mut pending = self.shared.lock();
            if pending.closed || pending.writes.len() >= MAX_QUEUED_WRITES {
                return Err(write);
            }
            pending.writes.push(Box::new(write));
        }
        self.shared.wake.notify_one();
        Ok(())
    }

    /// The failure that poisoned the store, if one did.
    pub fn poison(&self) -> Option<String> {
        self.shared.progress.borrow().poisoned.clone()
    }

    /// Resolves with the error once a flush has failed.
    pub fn poisoned(&self) -> impl Future<Output = String> + Send + 'static {
        let mut progress = self.shared.progress.subscribe();
        async move {
            let outcome = progress
                .wait_for(|p| p.poisoned.is_some())
                .await
                .map(|p| p.poisoned.clone().unwrap_or_default());
            match outcome {
                Ok(error) => error,
                // The flusher is gone (the store was dropped): never poisoned.
                Err(_) => std::future::pending().await,
            }
        }
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for GroupCommit {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.shared.wake.notify_all();
        if let Some(worker) = self.worker.take() {
            // A queued write may hold the last handle to the store and drop
            // it on the flusher thread itself, which cannot join itself; it
            // ends on its own once it sees `stop`.
            if worker.thread().id() != std::thread::current().id() {
                let _ = worker.join();
            }
        }
    }
}

fn flusher(shared: &Shared, flush: &FlushFn) {
    let mut done = 0u64;
    loop {
        let (target, mut writes) = {
            let mut pending = shared.lock();
            while pending.requested <= done
                && pending.writes.is_empty()
                && !shared.stop.load(Ordering::SeqCst)
            {
                pending = shared
                    .wake
                    .wait(pending)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            if pending.requested <= done && pending.writes.is_empty() {
                pending.closed = true;
                return; // stopping, nothing outstanding
            }
            (pending.requested, std::mem::take(&mut pending.writes))
        };
        for write in &mut writes {
            write.write();
        }
        match flush() {
            Ok(()) => {
                shared.progress.send_modify(|p| p.flushed = target);
                for write in writes {
                    write.flushed(Ok(()));
                }
            }
            Err(error) => {
                tracing::error!(%error, "store flush failed; the store accepts no more writes");
                let error = error.to_string();
                // Closed before the poison is published: a write submitted
                // once the poison shows is handed back, never left queued.
                let waiting = {
                    let mut pending = shared.lock();
                    pending.closed = true;
                    std::mem::take(&mut pending.writes)
                };
                shared
                    .progress
                    .send_modify(|p| p.poisoned = Some(error.clone()));
                for write in writes.into_iter().chain(waiting) {
                    write.flushed(Err(StoreError::Unavailable(error.clone())));
                }
                return;
            }
        }
        done = target;
    }
}

/// How long an open waits for sled's lock file. After the last handle to a
/// database in this process is dropped, sled's own I/O threads may hold the
/// lock a moment longer: `confer check --url` restores a backup (which
/// opens and closes it) and opens it at once, and CI saw that open refused.
/// A lock another process holds is still refused, after this long.
pub(super) const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Opens `config`'s database, retrying a refused lock for [`LOCK_WAIT`].
pub(super) fn open_waiting_for_the_lock(config: &sled::Config) -> Result<sled::Db, StoreError> {
    let until = std::time::Instant::now() + LOCK_WAIT;
    loop {
        match config.open() {
            Ok(db) => return Ok(db),
            Err(error)
                if error.to_string().contains("could not acquire lock")
                    && std::time::Instant::now() < until =>
            {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(error) => return Err(super::engine(error)),
        }
    }
}

#[cfg(test)]
mod tests;
