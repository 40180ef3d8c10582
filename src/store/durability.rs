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
//! log file. On Linux sled makes its log durable with `sync_file_range`,
//! which neither writes the file's metadata (a log that grew into new blocks)
//! nor flushes the device's write cache, so a power loss could take back
//! writes that were acknowledged; its own `fsync` runs only every 500 ms.
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
//! at the same priority, under 3 ms below it; docs/performance.md).
//!
//! A failed flush poisons the store: the failed and every later flush
//! report `StoreError::Unavailable`, so nothing is acknowledged after it,
//! and [`GroupCommit::poisoned`] resolves so the server can stop and exit
//! non-zero for its supervisor to restart it.

use std::fs::File;
use std::path::{Path, PathBuf};
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
        let synced = Mutex::new(0u64);
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

/// Makes everything written to `db` durable (see the module comment);
/// returns how many blob files it synced. `synced` is the highest blob LSN
/// synced so far (blob files are named by their LSN, which only grows).
pub fn flush_durably(
    db: &sled::Db,
    log: &File,
    blobs: &Path,
    synced: &Mutex<u64>,
) -> Result<usize, StoreError> {
    let began = std::time::Instant::now();
    db.flush().map_err(|e| StoreError::Engine(e.to_string()))?;
    let count = sync_new_blobs(blobs, synced)
        .map_err(|e| StoreError::Engine(format!("syncing the store's blobs: {e}")))?;
    log.sync_data()
        .map_err(|e| StoreError::Engine(format!("syncing the store's log: {e}")))?;
    metrics::histogram!(crate::observability::metrics::STORE_COMMIT)
        .record(began.elapsed().as_secs_f64());
    Ok(count)
}

/// `fsync`s the blob files newer than `synced`, then the directory.
fn sync_new_blobs(blobs: &Path, synced: &Mutex<u64>) -> std::io::Result<usize> {
    let mut high = synced.lock().unwrap_or_else(PoisonError::into_inner);
    let mut newest = *high;
    let mut count = 0;
    let entries = match std::fs::read_dir(blobs) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(error) => return Err(error),
    };
    for entry in entries {
        let entry = entry?;
        let Some(lsn) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        if lsn <= *high {
            continue;
        }
        match File::open(entry.path()) {
            Ok(file) => file.sync_all()?,
            // Collected by sled meanwhile: nothing to make durable.
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
            Err(error) => return Err(error),
        }
        newest = newest.max(lsn);
        count += 1;
    }
    if count > 0 {
        File::open(blobs)?.sync_all()?;
    }
    *high = newest;
    Ok(count)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_failed_flush_poisons_every_later_one() {
        use std::sync::atomic::AtomicU32;
        let calls = Arc::new(AtomicU32::new(0));
        let counter = Arc::clone(&calls);
        let commit = GroupCommit::with_flush(Box::new(move || {
            if counter.fetch_add(1, Ordering::SeqCst) == 0 {
                Ok(())
            } else {
                Err(StoreError::Engine("EIO".into()))
            }
        }))
        .unwrap();
        commit.flush().await.unwrap();
        assert!(commit.poison().is_none());
        let failed = commit.flush().await.unwrap_err();
        assert!(matches!(failed, StoreError::Unavailable(_)), "{failed}");
        assert!(commit.poisoned().await.contains("EIO"));
        // Nothing is ever acknowledged again, and no flush is even tried.
        assert!(matches!(
            commit.flush().await,
            Err(StoreError::Unavailable(_))
        ));
        assert_eq!(calls.load(Ordering::SeqCst), 2);
    }

    /// A queued write that records when it was made and how it ended.
    struct Probe {
        log: Arc<Mutex<Vec<String>>>,
        name: &'static str,
        told: Option<tokio::sync::oneshot::Sender<Result<(), StoreError>>>,
    }

    impl QueuedWrite for Probe {
        fn write(&mut self) {
            self.log
                .lock()
                .unwrap()
                .push(format!("write {}", self.name));
        }
        fn flushed(mut self: Box<Self>, result: Result<(), StoreError>) {
            if let Some(told) = self.told.take() {
                let _ = told.send(result);
            }
        }
    }

    fn probe(
        log: &Arc<Mutex<Vec<String>>>,
        name: &'static str,
    ) -> (
        Probe,
        tokio::sync::oneshot::Receiver<Result<(), StoreError>>,
    ) {
        let (told, wait) = tokio::sync::oneshot::channel();
        let probe = Probe {
            log: Arc::clone(log),
            name,
            told: Some(told),
        };
        (probe, wait)
    }

    #[tokio::test]
    async fn queued_writes_are_made_before_the_flush_and_answered_after_it() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let flushes = Arc::clone(&log);
        let commit = GroupCommit::with_flush(Box::new(move || {
            flushes.lock().unwrap().push("flush".into());
            Ok(())
        }))
        .unwrap();
        let (first, first_told) = probe(&log, "a");
        let (second, second_told) = probe(&log, "b");
        assert!(commit.submit(first).is_ok());
        assert!(commit.submit(second).is_ok());
        first_told.await.unwrap().unwrap();
        second_told.await.unwrap().unwrap();
        let log = log.lock().unwrap().clone();
        // Each write is followed by a flush before its caller is told.
        let flush_after = |name: &str| {
            let at = log
                .iter()
                .position(|l| l == &format!("write {name}"))
                .unwrap();
            log[at..].iter().any(|l| l == "flush")
        };
        assert!(flush_after("a") && flush_after("b"), "{log:?}");
    }

    #[tokio::test]
    async fn the_write_queue_is_bounded_and_hands_writes_back() {
        // The flusher is held inside a flush until released, so writes
        // queue up behind it.
        let (entered_tx, entered_rx) = std::sync::mpsc::channel::<()>();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let release_rx = Mutex::new(release_rx);
        let commit = GroupCommit::with_flush(Box::new(move || {
            let _ = entered_tx.send(());
            let _ = release_rx.lock().unwrap().recv();
            Ok(())
        }))
        .unwrap();
        let held = commit.flush();
        entered_rx.recv().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut waits = Vec::new();
        for _ in 0..MAX_QUEUED_WRITES {
            let (write, told) = probe(&log, "queued");
            assert!(commit.submit(write).is_ok());
            waits.push(told);
        }
        let (one_more, _) = probe(&log, "one more");
        let handed_back = commit.submit(one_more).expect_err("the queue is full");
        assert_eq!(handed_back.name, "one more");
        // Released, the flusher makes every queued write and answers it.
        for _ in 0..3 {
            let _ = release_tx.send(());
        }
        drop(release_tx);
        held.await.unwrap();
        for told in waits {
            told.await.unwrap().unwrap();
        }
        assert_eq!(log.lock().unwrap().len(), MAX_QUEUED_WRITES);
    }

    #[tokio::test]
    async fn a_failed_flush_fails_its_writes_and_refuses_later_ones() {
        let commit =
            GroupCommit::with_flush(Box::new(|| Err(StoreError::Engine("EIO".into())))).unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (write, told) = probe(&log, "a");
        assert!(commit.submit(write).is_ok());
        let failed = told.await.unwrap().unwrap_err();
        assert!(matches!(failed, StoreError::Unavailable(_)), "{failed}");
        commit.poisoned().await;
        // Handed back: the caller's own flush will report the poison.
        let (late, _) = probe(&log, "late");
        assert!(commit.submit(late).is_err());
    }

    #[test]
    fn blob_files_are_synced_before_the_flush_returns() {
        let dir = tempfile::tempdir().unwrap();
        let db = sled::open(dir.path()).unwrap();
        let log = File::open(dir.path().join(LOG_FILE)).unwrap();
        let synced = Mutex::new(0);
        let blobs = dir.path().join("blobs");
        db.insert(b"small", &[1u8; 100][..]).unwrap();
        assert_eq!(flush_durably(&db, &log, &blobs, &synced).unwrap(), 0);
        // 250 KiB: over sled's blob threshold, written to its own file.
        db.insert(b"large", vec![7u8; 250 * 1024]).unwrap();
        let count = flush_durably(&db, &log, &blobs, &synced).unwrap();
        assert!(count >= 1, "the blob was synced");
        assert!(std::fs::read_dir(&blobs).unwrap().count() >= 1);
        // Already synced blobs are not synced again.
        assert_eq!(flush_durably(&db, &log, &blobs, &synced).unwrap(), 0);
    }

    #[tokio::test]
    async fn concurrent_flushes_all_complete() {
        let dir = tempfile::tempdir().unwrap();
        let db = sled::open(dir.path()).unwrap();
        let log = File::open(dir.path().join(LOG_FILE)).unwrap();
        let commit = GroupCommit::start(
            db.clone(),
            log,
            dir.path().join("blobs"),
            Box::new(|| Ok(())),
        )
        .unwrap();
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
            // sled's own I/O threads may hold the file lock for a moment
            // after the drop (seen under a loaded test run); the flusher
            // thread must not hold it at all.
            let mut tries = 0;
            let store = loop {
                match crate::store::SledStore::open(
                    dir.path(),
                    crate::store::test_secrets(dir.path()),
                ) {
                    Ok(store) => break store,
                    Err(error) if tries < 100 => {
                        tries += 1;
                        let _ = error;
                        std::thread::sleep(std::time::Duration::from_millis(10));
                    }
                    Err(error) => panic!("still locked after 1 s: {error}"),
                }
            };
            drop(store);
        }
    }
}
