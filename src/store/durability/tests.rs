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
    let synced = SyncedBlobs::default();
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
            match crate::store::SledStore::open(dir.path(), crate::store::test_secrets(dir.path()))
            {
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

#[test]
fn a_blob_that_appears_late_under_a_lower_lsn_is_synced_and_one_still_growing_again() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let blobs = dir.path().join("blobs");
    std::fs::create_dir(&blobs).unwrap();
    let synced = SyncedBlobs::default();
    let write = |lsn: u64, bytes: &[u8]| {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(blobs.join(lsn.to_string()))
            .unwrap();
        file.write_all(bytes).unwrap();
    };
    write(5, b"five");
    assert_eq!(sync::sync_new_blobs(&blobs, &synced).unwrap(), 1);
    // LSN 7's writer finished first...
    write(7, b"seven");
    assert_eq!(sync::sync_new_blobs(&blobs, &synced).unwrap(), 1);
    // ...then LSN 6's file appears, half written: it is synced although
    // a higher LSN was already.
    write(6, b"si");
    assert_eq!(sync::sync_new_blobs(&blobs, &synced).unwrap(), 1);
    // The rest of it lands: synced again.
    write(6, b"x");
    assert_eq!(sync::sync_new_blobs(&blobs, &synced).unwrap(), 1);
    assert_eq!(sync::sync_new_blobs(&blobs, &synced).unwrap(), 0);
    // Collected files are forgotten.
    std::fs::remove_file(blobs.join("5")).unwrap();
    assert_eq!(sync::sync_new_blobs(&blobs, &synced).unwrap(), 0);
    assert_eq!(synced.len(), 2);
}
