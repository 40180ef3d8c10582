//! The disk side of a flush: sled's flush, then `fsync` of the blob files
//! and `fdatasync` of the log (why all three: the module comment of
//! `durability`).

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use confer_actors::StoreError;

/// The blob files already synced, by name (their LSN), with the length
/// each had when it was synced. A blob's LSN is reserved before its file
/// is written, so files do not appear in LSN order: a high-water mark
/// would skip a file that appears late under a lower LSN. A file is
/// written once, front to back, so a length that changed means it was
/// synced while still being written, and it is synced again.
#[derive(Default)]
pub struct SyncedBlobs(Mutex<HashMap<u64, u64>>);

impl SyncedBlobs {
    /// How many blob files are known synced.
    pub fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Makes everything written to `db` durable (see the module comment);
/// returns how many blob files it synced.
pub fn flush_durably(
    db: &sled::Db,
    log: &File,
    blobs: &Path,
    synced: &SyncedBlobs,
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

/// `fsync`s the blob files not synced at their present length, then the
/// directory; forgets the files sled has collected.
pub(super) fn sync_new_blobs(blobs: &Path, synced: &SyncedBlobs) -> std::io::Result<usize> {
    let mut known = synced.0.lock().unwrap_or_else(PoisonError::into_inner);
    let mut present = HashSet::new();
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
        let file = match File::open(entry.path()) {
            Ok(file) => file,
            // Collected by sled meanwhile: nothing to make durable.
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
            Err(error) => return Err(error),
        };
        present.insert(lsn);
        // The length before the sync: bytes written after it make the
        // next pass sync the file again.
        let length = file.metadata()?.len();
        if known.get(&lsn) == Some(&length) {
            continue;
        }
        file.sync_all()?;
        known.insert(lsn, length);
        count += 1;
    }
    if count > 0 {
        File::open(blobs)?.sync_all()?;
    }
    known.retain(|lsn, _| present.contains(lsn));
    Ok(count)
}

/// Moves the finished file `tmp` to `target` durably: the file synced,
/// renamed, then its directory synced, and `root` too when `target`'s
/// directory had to be made (an uploaded file kept under its org).
pub fn move_into_place(tmp: &Path, target: &Path, root: &Path) -> std::io::Result<()> {
    let sync_dir = |dir: &Path| File::open(dir)?.sync_all();
    let dir = target.parent().unwrap_or(root);
    let new_dir = !dir.exists();
    std::fs::create_dir_all(dir)?;
    if new_dir {
        sync_dir(root)?;
    }
    File::open(tmp)?.sync_all()?;
    std::fs::rename(tmp, target)?;
    sync_dir(dir)
}

/// Removes `path`; a file already gone is no error.
pub fn remove_if_present(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}
