//! What changes the trace files besides appends: recovery after a crash
//! (see `files`), erasure of a deleted thread's traces in place (the index
//! entry flagged and the payload zeroed, both synced), and retention, which
//! removes whole days.

use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;
use std::sync::PoisonError;

use confer_actors::StoreError;

use super::entry::{ENTRY_BYTES, ERASED_AT, IndexEntry, RECORD_HEAD, checks, day_name};
use super::files::{TraceFiles, io, sync_dir};

impl TraceFiles {
    /// Makes `day`'s index agree with its log (see the module comment).
    pub(super) fn recover(&self, day: u32) -> Result<(), StoreError> {
        let what = "recovering a trace file";
        let (log, idx) = self.open_pair(day)?;
        let log_len = log.metadata().map_err(|e| io(what, &e))?.len();
        let mut idx_len = idx.metadata().map_err(|e| io(what, &e))?.len();
        idx_len -= idx_len % ENTRY_BYTES as u64;
        // Entries whose record the log lost.
        let mut end = 0;
        while idx_len > 0 {
            let mut b = [0u8; ENTRY_BYTES];
            idx.read_exact_at(&mut b, idx_len - ENTRY_BYTES as u64)
                .map_err(|e| io(what, &e))?;
            match IndexEntry::parse(&b) {
                Some(entry) if entry.end() <= log_len => {
                    end = entry.end();
                    break;
                }
                _ => idx_len -= ENTRY_BYTES as u64,
            }
        }
        // Records the index lost, up to the first torn one.
        let mut at = end;
        let mut found = Vec::new();
        while at + RECORD_HEAD as u64 <= log_len {
            let mut head = [0u8; RECORD_HEAD];
            log.read_exact_at(&mut head, at).map_err(|e| io(what, &e))?;
            let Some(entry) = IndexEntry::parse(&head[4..]) else {
                break;
            };
            if entry.offset != at || entry.end() > log_len {
                break;
            }
            let mut payload = vec![0u8; entry.len as usize];
            log.read_exact_at(&mut payload, at + RECORD_HEAD as u64)
                .map_err(|e| io(what, &e))?;
            if !checks(&head, &payload) {
                break;
            }
            found.extend_from_slice(&entry.bytes());
            at = entry.end();
        }
        let mut changed = at != log_len;
        if changed {
            log.set_len(at).map_err(|e| io(what, &e))?;
        }
        if idx.metadata().map_err(|e| io(what, &e))?.len() != idx_len || !found.is_empty() {
            idx.set_len(idx_len).map_err(|e| io(what, &e))?;
            idx.write_all_at(&found, idx_len)
                .map_err(|e| io(what, &e))?;
            changed = true;
        }
        if changed {
            tracing::warn!(day = %day_name(day), "a trace file was made whole after a crash");
            log.sync_all().map_err(|e| io(what, &e))?;
            idx.sync_all().map_err(|e| io(what, &e))?;
        }
        Ok(())
    }

    /// Erases the traces of `day` that `doomed` picks, at most `limit`:
    /// flags their entries and zeroes their payloads, synced; returns how
    /// many.
    pub fn erase(
        &self,
        day: u32,
        limit: usize,
        doomed: impl Fn(&IndexEntry) -> bool,
    ) -> Result<usize, StoreError> {
        let what = "erasing a trace";
        let mut positions = Vec::new();
        self.scan_positions(day, |position, entry| {
            if doomed(entry) {
                positions.push((position, *entry));
            }
            positions.len() < limit
        })?;
        if positions.is_empty() {
            return Ok(0);
        }
        let (log, idx) = (
            OpenOptions::new().write(true).open(self.path(day, "log")),
            OpenOptions::new().write(true).open(self.path(day, "idx")),
        );
        let (log, idx) = match (log, idx) {
            (Ok(log), Ok(idx)) => (log, idx),
            // Removed by the retention meanwhile: nothing left to erase.
            _ => return Ok(0),
        };
        for (position, entry) in &positions {
            idx.write_all_at(&[1], position + ERASED_AT)
                .map_err(|e| io(what, &e))?;
            let zeros = vec![0u8; entry.len as usize];
            log.write_all_at(&zeros, entry.offset + RECORD_HEAD as u64)
                .map_err(|e| io(what, &e))?;
        }
        idx.sync_data().map_err(|e| io(what, &e))?;
        log.sync_data().map_err(|e| io(what, &e))?;
        Ok(positions.len())
    }

    /// Removes every day before `day` (the retention); returns how many
    /// traces went with them.
    pub fn remove_days_before(&self, day: u32) -> Result<usize, StoreError> {
        let mut removed = 0;
        for old in self.days()?.into_iter().filter(|d| *d < day) {
            self.open
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&old);
            let mut traces = 0;
            self.scan(old, |_| {
                traces += 1;
                true
            })?;
            for ext in ["idx", "log"] {
                match std::fs::remove_file(self.path(old, ext)) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(io("removing a trace file", &e)),
                }
            }
            removed += traces;
        }
        if removed > 0 {
            sync_dir(&self.dir)?;
        }
        Ok(removed)
    }
}
