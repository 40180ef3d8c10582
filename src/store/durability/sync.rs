//! The disk side of a flush: sled's flush, then `fsync` of the blob files
//! and `fdatasync` of the log (why all three: the module comment of
//! `durability`).

use std::fs::File;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use confer_actors::StoreError;

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
