//! The trace files themselves: made whole after a crash, erasure in place,
//! lookup by id across midnight.
#![allow(clippy::unwrap_used)]

use chrono::Utc;
use confer_actors::{AgentId, OrgId, ThreadId, TraceId};

use super::tests::finished;
use super::{IndexEntry, TRACES_DIR, TraceFiles, entry};
use crate::store::keys;

/// Appends `n` traces of `thread` straight to `files`; returns their ids.
fn append_to(files: &TraceFiles, thread: ThreadId, n: usize) -> Vec<TraceId> {
    (0..n)
        .map(|_| {
            let record = finished(OrgId::new(), AgentId::new(), thread, "alice");
            let payload = entry::encode(&record).unwrap();
            files
                .append(IndexEntry::of(&record.trace), &payload)
                .unwrap();
            record.trace.id
        })
        .collect()
}

fn found(files: &TraceFiles, ids: &[TraceId]) -> Vec<bool> {
    ids.iter()
        .map(|id| {
            files
                .find(id.as_bytes())
                .unwrap()
                .and_then(|e| files.record(&e).unwrap())
                .is_some_and(|r| r.trace.id == *id)
        })
        .collect()
}

fn day_file(dir: &std::path::Path, ext: &str) -> std::path::PathBuf {
    let name = Utc::now().format("%Y-%m-%d").to_string();
    dir.join(TRACES_DIR).join(format!("{name}.{ext}"))
}

fn grow(path: &std::path::Path, bytes: &[u8]) {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    file.write_all(bytes).unwrap();
}

fn cut(path: &std::path::Path, by: u64) {
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    let len = file.metadata().unwrap().len();
    file.set_len(len - by).unwrap();
}

#[test]
fn the_files_are_made_whole_after_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let thread = ThreadId::new();
    let ids = {
        let files = TraceFiles::open(dir.path()).unwrap();
        let ids = append_to(&files, thread, 3);
        files.sync().unwrap();
        ids
    };
    let (log, idx) = (day_file(dir.path(), "log"), day_file(dir.path(), "idx"));
    // The index lost its last entry and half of another was written: the
    // log's record is indexed again.
    cut(&idx, entry::ENTRY_BYTES as u64);
    grow(&idx, &[7u8; 40]);
    let files = TraceFiles::open(dir.path()).unwrap();
    assert_eq!(found(&files, &ids), [true, true, true]);
    drop(files);
    // A record torn in the log: it is cut, the rest stays, and appends go on
    // after it.
    grow(&log, &[9u8; 150]);
    let files = TraceFiles::open(dir.path()).unwrap();
    assert_eq!(found(&files, &ids), [true, true, true]);
    let more = append_to(&files, thread, 1);
    assert_eq!(found(&files, &more), [true]);
    drop(files);
    // The log lost the end of its last record: its entry goes.
    cut(&log, 10);
    let files = TraceFiles::open(dir.path()).unwrap();
    assert_eq!(found(&files, &ids), [true, true, true]);
    assert_eq!(found(&files, &more), [false]);
    let mut entries = 0;
    files
        .scan(files.days().unwrap()[0], |_| {
            entries += 1;
            true
        })
        .unwrap();
    assert_eq!(entries, 3);
}

#[test]
fn an_erased_trace_is_gone_and_its_neighbours_stay() {
    let dir = tempfile::tempdir().unwrap();
    let files = TraceFiles::open(dir.path()).unwrap();
    let (doomed, kept) = (ThreadId::new(), ThreadId::new());
    let mut ids = append_to(&files, kept, 1);
    let erased = append_to(&files, doomed, 2);
    ids.extend(append_to(&files, kept, 1));
    let day = files.days().unwrap()[0];
    let erase = |limit| {
        files
            .erase(day, limit, |e| &e.thread == doomed.as_bytes())
            .unwrap()
    };
    assert_eq!(erase(1), 1);
    assert_eq!(erase(5), 1);
    assert_eq!(erase(5), 0);
    assert_eq!(found(&files, &erased), [false, false]);
    assert_eq!(found(&files, &ids), [true, true]);
    // The payload is zeroed on disk, not only unlisted.
    let log = std::fs::read(day_file(dir.path(), "log")).unwrap();
    let needle = erased[0].to_string();
    assert!(!log.windows(needle.len()).any(|w| w == needle.as_bytes()));
    drop(files);
    // Reopening (the recovery) keeps the erasure and the neighbours.
    let files = TraceFiles::open(dir.path()).unwrap();
    assert_eq!(found(&files, &erased), [false, false]);
    assert_eq!(found(&files, &ids), [true, true]);
}

#[test]
fn a_trace_filed_across_midnight_from_its_id_is_found_by_it() {
    let dir = tempfile::tempdir().unwrap();
    let files = TraceFiles::open(dir.path()).unwrap();
    let midnight = Utc::now()
        .date_naive()
        .and_hms_opt(0, 0, 0)
        .unwrap()
        .and_utc();
    let ms = chrono::TimeDelta::milliseconds;
    // Started just before midnight, its id made just after; and the other
    // way round (a clock stepped back between the two).
    let mut ids = Vec::new();
    for (started, id_at) in [
        (midnight - ms(5), midnight + ms(5)),
        (midnight + ms(5), midnight - ms(5)),
    ] {
        let mut record = finished(OrgId::new(), AgentId::new(), ThreadId::new(), "alice");
        record.trace.started_at = started;
        let ts = uuid::Timestamp::from_unix(
            uuid::NoContext,
            u64::try_from(id_at.timestamp()).unwrap(),
            id_at.timestamp_subsec_nanos(),
        );
        record.trace.id = TraceId::from_bytes(*uuid::Uuid::new_v7(ts).as_bytes());
        let payload = entry::encode(&record).unwrap();
        files
            .append(IndexEntry::of(&record.trace), &payload)
            .unwrap();
        ids.push(record.trace.id);
    }
    let today = keys::day_number(midnight);
    assert_eq!(
        files.days().unwrap(),
        [today - 1, today],
        "filed under the day each started"
    );
    assert_eq!(found(&files, &ids), [true, true]);
}

#[test]
fn index_entries_wait_for_the_flush_or_a_reader_within_a_bound() {
    let dir = tempfile::tempdir().unwrap();
    let files = TraceFiles::open(dir.path()).unwrap();
    let thread = ThreadId::new();
    let first = append_to(&files, thread, 3);
    let day = files.days().unwrap()[0];
    let idx_len = || std::fs::metadata(files.path(day, "idx")).unwrap().len();
    let entry_bytes = entry::ENTRY_BYTES as u64;
    assert_eq!(idx_len(), 0, "held back until the flush");
    files.sync().unwrap();
    assert_eq!(idx_len(), 3 * entry_bytes, "one write at the flush");
    let more = append_to(&files, thread, 2);
    assert_eq!(idx_len(), 3 * entry_bytes);
    // A reader needs them: written before it reads.
    assert_eq!(found(&files, &more), [true, true]);
    assert_eq!(found(&files, &first), [true, true, true]);
    assert_eq!(idx_len(), 5 * entry_bytes);
    // Never more than the bound held back, flush or not.
    let held = super::files::PENDING_INDEX_BYTES.div_ceil(entry::ENTRY_BYTES);
    append_to(&files, thread, held);
    assert_eq!(idx_len(), (5 + held as u64) * entry_bytes);
    assert_eq!(files.unsynced(), 1);
}
