//! The trace files: each UTC day's traces (by the day they started) in
//! `traces/{YYYY-MM-DD}.log`, appended as the turns commit, and beside it
//! `{day}.idx`, one fixed-width [`IndexEntry`] per trace.
//!
//! Why not sled: a ~2 KB trace and its four index keys in the answer's
//! transaction cost +23% CPU per turn (sled 0.34 rewrites whole leaves every
//! few deltas and holds its database-wide lock meanwhile;
//! docs/performance-history.md). Here a trace is one `pwrite` to the log and one to
//! the index (held back and written once per flush for every trace it
//! covers, or when a reader needs it), and the flush that acknowledges the
//! answer `fdatasync`s the logs written since the last one
//! ([`TraceFiles::sync`]).
//!
//! A log record is `[crc32 u32 BE][entry][payload]`, the crc over the entry
//! and the payload; the payload is the trace's header and its spans
//! ([`encode`]). The index is derived: at open ([`TraceFiles::open`]) a day
//! whose index points past its log loses those entries, and log records
//! past the last indexed one are checked and indexed, up to the first torn
//! one, where the log is cut. So only the logs are synced per flush.
//!
//! Recovery, erasure (a thread's deletion) and retention (whole days) are
//! in `upkeep`.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use confer_actors::{StoreError, Trace, TraceRecord};

use super::entry::{
    ENTRY_BYTES, IndexEntry, RECORD_HEAD, checks, crc, day_name, day_of_micros, decode_header,
    decode_record, parse_day,
};

/// The directory, under the data directory, of the trace files.
pub const TRACES_DIR: &str = "traces";
/// Days whose files stay open for appending (a turn that started before
/// midnight commits into yesterday's file).
const OPEN_DAYS: usize = 4;
/// Index entries read per read call.
const ENTRIES_PER_READ: usize = 1_024;
/// Index bytes a day holds back before writing them without waiting for a
/// flush (about 680 entries).
pub(super) const PENDING_INDEX_BYTES: usize = 64 * 1024;

pub(super) fn io(what: &str, error: &std::io::Error) -> StoreError {
    StoreError::Engine(format!("{what}: {error}"))
}

/// One day's files, open for appending.
pub(super) struct OpenDay {
    log: Arc<File>,
    idx: File,
    log_len: u64,
    /// The index's written length: what a reader may read.
    idx_len: u64,
    /// Index entries appended since the index was last written: written
    /// by the next flush (one write for every trace it covers), or sooner
    /// when a reader needs them or they reach [`PENDING_INDEX_BYTES`].
    pending: Vec<u8>,
    /// Written since the last sync.
    dirty: bool,
}

impl OpenDay {
    /// Writes the held-back index entries after the written ones.
    fn write_index(&mut self) -> Result<(), StoreError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        self.idx
            .write_all_at(&self.pending, self.idx_len)
            .map_err(|e| io("writing a trace's index entry", &e))?;
        self.idx_len += self.pending.len() as u64;
        self.pending.clear();
        Ok(())
    }
}

/// The trace files of one store.
pub struct TraceFiles {
    pub(super) dir: PathBuf,
    pub(super) open: Mutex<BTreeMap<u32, OpenDay>>,
}

impl std::fmt::Debug for TraceFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceFiles")
            .field("dir", &self.dir)
            .finish()
    }
}

impl TraceFiles {
    /// The trace files under `data_dir`, each day's made whole after a
    /// crash (see the module comment).
    pub fn open(data_dir: &Path) -> Result<Self, StoreError> {
        let files = Self {
            dir: data_dir.join(TRACES_DIR),
            open: Mutex::new(BTreeMap::new()),
        };
        for day in files.days()? {
            files.recover(day)?;
        }
        Ok(files)
    }

    pub(super) fn path(&self, day: u32, ext: &str) -> PathBuf {
        self.dir.join(format!("{}.{ext}", day_name(day)))
    }

    /// The days that have files, oldest first.
    pub fn days(&self) -> Result<Vec<u32>, StoreError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io("listing the trace files", &e)),
        };
        let mut days = Vec::new();
        for entry in entries {
            let name = entry
                .map_err(|e| io("listing the trace files", &e))?
                .file_name();
            let name = name.to_string_lossy();
            if let Some(day) = name.strip_suffix(".log").and_then(parse_day) {
                days.push(day);
            }
        }
        days.sort_unstable();
        Ok(days)
    }

    /// The files of the trace directory, with their names (for backups;
    /// the caller holds writes off).
    pub fn archived(&self) -> Result<Vec<(String, PathBuf)>, StoreError> {
        let mut out = Vec::new();
        for day in self.days()? {
            for ext in ["log", "idx"] {
                let path = self.path(day, ext);
                if path.exists() {
                    out.push((format!("{TRACES_DIR}/{}.{ext}", day_name(day)), path));
                }
            }
        }
        Ok(out)
    }

    pub(super) fn open_pair(&self, day: u32) -> Result<(File, File), StoreError> {
        let open = |ext: &str| {
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(self.path(day, ext))
                .map_err(|e| io("opening a trace file", &e))
        };
        Ok((open("log")?, open("idx")?))
    }

    /// Appends `record` (its entry and payload made by the caller) to the
    /// files of the day it started; durable after the next [`Self::sync`].
    pub fn append(&self, mut entry: IndexEntry, payload: &[u8]) -> Result<(), StoreError> {
        let day = day_of_micros(entry.started_us);
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if !open.contains_key(&day) {
            let fresh = self.start_day(day)?;
            if open.len() == OPEN_DAYS {
                // The oldest day goes; its log was synced by the flush that
                // acknowledged its last trace, or is synced now.
                if let Some((_, mut oldest)) = open.pop_first() {
                    oldest.write_index()?;
                    if oldest.dirty {
                        oldest
                            .log
                            .sync_data()
                            .map_err(|e| io("syncing a trace file", &e))?;
                    }
                }
            }
            open.insert(day, fresh);
        }
        let Some(files) = open.get_mut(&day) else {
            return Err(StoreError::Engine("a trace day was not opened".into()));
        };
        entry.offset = files.log_len;
        entry.len = u32::try_from(payload.len())
            .map_err(|_| StoreError::Codec("a trace over 4 GiB".into()))?;
        entry.erased = false;
        let head = entry.bytes();
        let mut record = Vec::with_capacity(RECORD_HEAD + payload.len());
        record.extend_from_slice(&crc(&head, payload).to_be_bytes());
        record.extend_from_slice(&head);
        record.extend_from_slice(payload);
        files
            .log
            .write_all_at(&record, files.log_len)
            .map_err(|e| io("writing a trace", &e))?;
        files.log_len += record.len() as u64;
        files.pending.extend_from_slice(&head);
        files.dirty = true;
        if files.pending.len() >= PENDING_INDEX_BYTES {
            files.write_index()?;
        }
        Ok(())
    }

    /// Opens `day`'s files for appending (created, with their directory
    /// entries made durable, when new).
    fn start_day(&self, day: u32) -> Result<OpenDay, StoreError> {
        let new = !self.path(day, "log").exists();
        if new {
            std::fs::create_dir_all(&self.dir)
                .map_err(|e| io("creating the trace directory", &e))?;
        }
        let (log, idx) = self.open_pair(day)?;
        if new {
            sync_dir(&self.dir)?;
            if let Some(parent) = self.dir.parent() {
                sync_dir(parent)?;
            }
        }
        let log_len = log
            .metadata()
            .map_err(|e| io("opening a trace file", &e))?
            .len();
        let idx_len = idx
            .metadata()
            .map_err(|e| io("opening a trace file", &e))?
            .len();
        Ok(OpenDay {
            log: Arc::new(log),
            idx,
            log_len,
            idx_len: idx_len - idx_len % ENTRY_BYTES as u64,
            pending: Vec::new(),
            dirty: false,
        })
    }

    /// Makes every trace appended so far durable (the flusher calls this
    /// in each flush, before answering the writes it covers), its index
    /// entries written first (not synced: the index is derived).
    pub fn sync(&self) -> Result<(), StoreError> {
        let logs: Vec<Arc<File>> = {
            let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
            let mut logs = Vec::new();
            for day in open.values_mut() {
                day.write_index()?;
                if std::mem::take(&mut day.dirty) {
                    logs.push(Arc::clone(&day.log));
                }
            }
            logs
        };
        for log in logs {
            log.sync_data()
                .map_err(|e| io("syncing a trace file", &e))?;
        }
        Ok(())
    }

    /// How many days hold traces written since the last sync.
    #[cfg(test)]
    pub(super) fn unsynced(&self) -> usize {
        let open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        open.values().filter(|day| day.dirty).count()
    }

    /// How many whole index entries of `day` a reader may read: an open
    /// day's count is the writer's (an entry being written is not yet in
    /// it), its held-back entries written first.
    fn indexed(&self, day: u32, idx: &File) -> Result<u64, StoreError> {
        if let Some(files) = self
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_mut(&day)
        {
            files.write_index()?;
            return Ok(files.idx_len / ENTRY_BYTES as u64);
        }
        let len = idx
            .metadata()
            .map_err(|e| io("reading a trace index", &e))?
            .len();
        Ok(len / ENTRY_BYTES as u64)
    }

    /// Calls `each` with every live (not erased) entry of `day`, in the
    /// order written; stops early when `each` returns false.
    pub fn scan(
        &self,
        day: u32,
        mut each: impl FnMut(&IndexEntry) -> bool,
    ) -> Result<(), StoreError> {
        self.scan_positions(day, |_, entry| each(entry))
    }

    /// The payload of `entry`'s record; `None` when it was erased or
    /// removed meanwhile, or does not check (logged).
    fn payload(&self, entry: &IndexEntry) -> Result<Option<Vec<u8>>, StoreError> {
        let day = day_of_micros(entry.started_us);
        let log = match File::open(self.path(day, "log")) {
            Ok(log) => log,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io("reading a trace", &e)),
        };
        let mut record = vec![0u8; RECORD_HEAD + entry.len as usize];
        match log.read_exact_at(&mut record, entry.offset) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(io("reading a trace", &e)),
        }
        let (head, payload) = record.split_at(RECORD_HEAD);
        if !checks(head, payload) {
            // Erased since the index was read, or damaged.
            tracing::debug!("a trace record no longer checks (erased?)");
            return Ok(None);
        }
        Ok(Some(record.split_off(RECORD_HEAD)))
    }

    /// The header of `entry`'s trace.
    pub fn header(&self, entry: &IndexEntry) -> Result<Option<Trace>, StoreError> {
        self.payload(entry)?.map(|p| decode_header(&p)).transpose()
    }

    /// The whole record of `entry`'s trace.
    pub fn record(&self, entry: &IndexEntry) -> Result<Option<TraceRecord>, StoreError> {
        self.payload(entry)?.map(|p| decode_record(&p)).transpose()
    }

    /// Like [`Self::scan`], with each entry's byte position in the index.
    pub(super) fn scan_positions(
        &self,
        day: u32,
        mut each: impl FnMut(u64, &IndexEntry) -> bool,
    ) -> Result<(), StoreError> {
        let mut position = 0u64;
        let mut going = true;
        let idx = match File::open(self.path(day, "idx")) {
            Ok(idx) => idx,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(io("reading a trace index", &e)),
        };
        let count = self.indexed(day, &idx)?;
        let mut buffer = vec![0u8; ENTRIES_PER_READ * ENTRY_BYTES];
        while going && position < count * ENTRY_BYTES as u64 {
            let n = ((count * ENTRY_BYTES as u64 - position) as usize).min(buffer.len());
            let chunk = &mut buffer[..n];
            idx.read_exact_at(chunk, position)
                .map_err(|e| io("reading a trace index", &e))?;
            for bytes in chunk.chunks_exact(ENTRY_BYTES) {
                if let Some(entry) = IndexEntry::parse(bytes)
                    && !entry.erased
                    && !each(position, &entry)
                {
                    going = false;
                    break;
                }
                position += ENTRY_BYTES as u64;
            }
        }
        Ok(())
    }
}

pub(super) fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io("syncing the trace directory", &e))
}
