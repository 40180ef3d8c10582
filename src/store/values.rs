//! Large values in files of their own, outside sled.
//!
//! sled 0.34 keeps each value it writes in memory until its cache evicts the
//! page, and it takes note of page accesses lazily, in batches of 64 per
//! shard of 256: a burst of a few thousand writes never fills a batch, so
//! nothing is evicted and every byte written stays resident whatever the
//! cache capacity (measured: 150 turns of 250 KiB questions and 1 MiB
//! answers kept about 200 MiB of sled values alive). Messages and context
//! entries over [`LARGE_VALUE_BYTES`] are therefore written to
//! `values/{thread}/{value id}` under the data directory, made durable
//! (the file, then its directory) before the record that points at them is
//! written, and the record keeps a stub: `[FILED, length u64 BE, id 16 B]`.
//!
//! A crash between the file and its record leaves a file nothing points at
//! in the thread's directory; it goes with the directory when the thread is
//! purged.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use confer_actors::{StoreError, ThreadId};

/// Values longer than this are written to a file of their own.
pub const LARGE_VALUE_BYTES: usize = 32 * 1024;
/// The directory, under the data directory, of the value files.
pub const VALUES_DIR: &str = "values";
/// First byte of a stub (record encodings start with a small version number).
const FILED: u8 = 0xF1;
const STUB_LEN: usize = 1 + 8 + 16;

fn io(what: &str, error: &std::io::Error) -> StoreError {
    StoreError::Engine(format!("{what}: {error}"))
}

/// The value files of one database.
#[derive(Debug)]
pub struct ValueFiles {
    dir: PathBuf,
}

impl ValueFiles {
    /// The value files under `data_dir` (the directory is created on first
    /// write).
    pub fn new(data_dir: &Path) -> Self {
        Self {
            dir: data_dir.join(VALUES_DIR),
        }
    }

    fn thread_dir(&self, thread: ThreadId) -> PathBuf {
        self.dir.join(hex::encode(thread.as_bytes()))
    }

    /// Starts writing values of `thread`: see [`ValueBatch`].
    pub fn batch(&self, thread: ThreadId) -> ValueBatch<'_> {
        ValueBatch {
            files: self,
            thread,
            written: Vec::new(),
        }
    }

    /// The value a record stored: the stored bytes themselves, or the
    /// contents of the file its stub names.
    pub fn read(&self, thread: ThreadId, stored: &[u8]) -> Result<Vec<u8>, StoreError> {
        if stored.len() != STUB_LEN || stored[0] != FILED {
            return Ok(stored.to_vec());
        }
        let mut length = [0u8; 8];
        length.copy_from_slice(&stored[1..9]);
        let length = usize::try_from(u64::from_be_bytes(length))
            .map_err(|_| StoreError::Codec("stored value length".into()))?;
        let mut id = [0u8; 16];
        id.copy_from_slice(&stored[9..]);
        let path = self
            .thread_dir(thread)
            .join(uuid::Uuid::from_bytes(id).simple().to_string());
        let mut value = Vec::with_capacity(length);
        File::open(&path)
            .and_then(|mut file| file.read_to_end(&mut value))
            .map_err(|e| io("reading a stored value", &e))?;
        if value.len() != length {
            return Err(StoreError::Codec(
                "a stored value file has the wrong length".into(),
            ));
        }
        Ok(value)
    }

    /// Removes every value file of `thread` (its purge).
    pub fn remove_thread(&self, thread: ThreadId) -> Result<(), StoreError> {
        match std::fs::remove_dir_all(self.thread_dir(thread)) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io("removing a thread's value files", &e)),
        }
    }
}

/// The values of one write to a thread: [`ValueBatch::put`] each, then
/// [`ValueBatch::sync`] before writing the records that point at them.
pub struct ValueBatch<'a> {
    files: &'a ValueFiles,
    thread: ThreadId,
    written: Vec<File>,
}

impl ValueBatch<'_> {
    /// What a record should store for `value`: `value` itself when small,
    /// else the stub of the file it was written to.
    pub fn put(&mut self, value: Vec<u8>) -> Result<Vec<u8>, StoreError> {
        if value.len() <= LARGE_VALUE_BYTES {
            return Ok(value);
        }
        let dir = self.files.thread_dir(self.thread);
        if !dir.exists() {
            std::fs::create_dir_all(&dir).map_err(|e| io("creating a value directory", &e))?;
            // The thread's directory entry must outlive a crash too.
            sync_dir(&self.files.dir)?;
        }
        let id = uuid::Uuid::new_v4();
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(dir.join(id.simple().to_string()))
            .map_err(|e| io("creating a value file", &e))?;
        file.write_all(&value)
            .map_err(|e| io("writing a value file", &e))?;
        self.written.push(file);
        let mut stub = Vec::with_capacity(STUB_LEN);
        stub.push(FILED);
        stub.extend_from_slice(&(value.len() as u64).to_be_bytes());
        stub.extend_from_slice(id.as_bytes());
        Ok(stub)
    }

    /// Makes every file put since the last sync durable, with its
    /// directory entry.
    pub fn sync(&mut self) -> Result<(), StoreError> {
        if self.written.is_empty() {
            return Ok(());
        }
        for file in self.written.drain(..) {
            file.sync_data()
                .map_err(|e| io("syncing a value file", &e))?;
        }
        sync_dir(&self.files.thread_dir(self.thread))
    }
}

fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io("syncing a value directory", &e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_values_go_to_files_and_small_ones_stay_inline() {
        let dir = tempfile::tempdir().unwrap();
        let files = ValueFiles::new(dir.path());
        let thread = ThreadId::new();
        let large: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let mut batch = files.batch(thread);
        let stub = batch.put(large.clone()).unwrap();
        let small = batch.put(b"\x01{}".to_vec()).unwrap();
        batch.sync().unwrap();
        assert_eq!(stub.len(), STUB_LEN);
        assert_eq!(small, b"\x01{}");
        assert_eq!(files.read(thread, &stub).unwrap(), large);
        assert_eq!(files.read(thread, &small).unwrap(), b"\x01{}");
        let on_disk: Vec<_> = std::fs::read_dir(files.thread_dir(thread))
            .unwrap()
            .collect();
        assert_eq!(on_disk.len(), 1);
        // A truncated file is an error, not a short value.
        let path = on_disk[0].as_ref().unwrap().path();
        std::fs::write(&path, &large[..1000]).unwrap();
        assert!(files.read(thread, &stub).is_err());
        files.remove_thread(thread).unwrap();
        assert!(!files.thread_dir(thread).exists());
        files.remove_thread(thread).unwrap();
    }
}
