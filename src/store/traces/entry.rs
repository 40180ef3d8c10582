//! One trace as the trace files hold it: its fixed-width [`IndexEntry`]
//! (in the day's index and at the head of its log record) and its payload
//! (header, then spans), with the record's checksum.

use chrono::{DateTime, NaiveDate};
use confer_actors::{Span, StoreError, Trace, TraceRecord, TraceStatus};
use serde::{Deserialize, Serialize};

use crate::store::codec::{decode, encode as encode_record};

/// Bytes of one index entry.
pub const ENTRY_BYTES: usize = 96;
/// Bytes before a record's payload in the log: the crc and the entry.
pub const RECORD_HEAD: usize = 4 + ENTRY_BYTES;
/// Where an entry's `erased` flag is.
pub const ERASED_AT: u64 = 81;

/// The first 8 bytes of the SHA-256 of a user id (the index's user field;
/// a match is confirmed against the stored header).
pub fn user_hash(user: &str) -> [u8; 8] {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(user.as_bytes());
    let mut hash = [0u8; 8];
    hash.copy_from_slice(&digest[..8]);
    hash
}

fn status_byte(status: TraceStatus) -> u8 {
    match status {
        TraceStatus::Running => 0,
        TraceStatus::Ok => 1,
        TraceStatus::Error => 2,
        TraceStatus::Stopped => 3,
    }
}

/// The UTC day (days since 1970-01-01) of a time in microseconds.
pub fn day_of_micros(micros: i64) -> u32 {
    u32::try_from(micros.div_euclid(86_400_000_000)).unwrap_or(0)
}

pub fn day_name(day: u32) -> String {
    DateTime::from_timestamp(i64::from(day) * 86_400, 0)
        .map(|t| t.format("%Y-%m-%d").to_string())
        .unwrap_or_else(|| format!("day-{day}"))
}

pub fn parse_day(name: &str) -> Option<u32> {
    let date = NaiveDate::parse_from_str(name, "%Y-%m-%d").ok()?;
    let at = date.and_hms_opt(0, 0, 0)?.and_utc();
    Some(day_of_micros(at.timestamp_micros()))
}

/// One trace's entry in its day's index (and at the head of its record).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexEntry {
    pub started_us: i64,
    pub id: [u8; 16],
    pub org: [u8; 16],
    pub agent: [u8; 16],
    pub thread: [u8; 16],
    pub user: [u8; 8],
    status: u8,
    pub(super) erased: bool,
    pub(super) offset: u64,
    pub(super) len: u32,
}

impl IndexEntry {
    /// The entry of `trace` (its place in the log is set when appended).
    pub fn of(trace: &Trace) -> Self {
        Self {
            started_us: trace.started_at.timestamp_micros(),
            id: *trace.id.as_bytes(),
            org: *trace.org_id.as_bytes(),
            agent: *trace.agent_id.as_bytes(),
            thread: *trace.thread_id.as_bytes(),
            user: user_hash(&trace.user_id),
            status: status_byte(trace.status),
            erased: false,
            offset: 0,
            len: 0,
        }
    }

    /// Whether the trace has `status`.
    pub fn has_status(&self, status: TraceStatus) -> bool {
        self.status == status_byte(status)
    }

    /// The listing order: newest first is descending.
    pub fn order(&self) -> (i64, [u8; 16]) {
        (self.started_us, self.id)
    }

    pub(super) fn bytes(&self) -> [u8; ENTRY_BYTES] {
        let mut b = [0u8; ENTRY_BYTES];
        b[0..8].copy_from_slice(&self.started_us.to_be_bytes());
        b[8..24].copy_from_slice(&self.id);
        b[24..40].copy_from_slice(&self.org);
        b[40..56].copy_from_slice(&self.agent);
        b[56..72].copy_from_slice(&self.thread);
        b[72..80].copy_from_slice(&self.user);
        b[80] = self.status;
        b[81] = u8::from(self.erased);
        b[84..92].copy_from_slice(&self.offset.to_be_bytes());
        b[92..96].copy_from_slice(&self.len.to_be_bytes());
        b
    }

    pub(super) fn parse(b: &[u8]) -> Option<Self> {
        let array =
            |range: std::ops::Range<usize>| -> Option<[u8; 16]> { b.get(range)?.try_into().ok() };
        Some(Self {
            started_us: i64::from_be_bytes(b.get(0..8)?.try_into().ok()?),
            id: array(8..24)?,
            org: array(24..40)?,
            agent: array(40..56)?,
            thread: array(56..72)?,
            user: b.get(72..80)?.try_into().ok()?,
            status: *b.get(80)?,
            erased: *b.get(81)? != 0,
            offset: u64::from_be_bytes(b.get(84..92)?.try_into().ok()?),
            len: u32::from_be_bytes(b.get(92..96)?.try_into().ok()?),
        })
    }

    /// Where the record ends in the log.
    pub(super) fn end(&self) -> u64 {
        self.offset + RECORD_HEAD as u64 + u64::from(self.len)
    }
}

/// The spans and cost of a stored trace (the payload after its header).
#[derive(Serialize)]
struct Tail<'a> {
    spans: &'a [Span],
    cost_nanos: Option<u64>,
}

#[derive(Deserialize)]
struct OwnedTail {
    spans: Vec<Span>,
    cost_nanos: Option<u64>,
}

/// A trace's payload: `[header length u32 BE][header][spans and cost]`, so
/// a listing decodes the header alone.
pub fn encode(record: &TraceRecord) -> Result<Vec<u8>, StoreError> {
    let header = encode_record(&record.trace)?;
    let tail = encode_record(&Tail {
        spans: &record.spans,
        cost_nanos: record.cost_nanos,
    })?;
    let len = u32::try_from(header.len()).map_err(|_| StoreError::Codec("trace header".into()))?;
    let mut payload = Vec::with_capacity(4 + header.len() + tail.len());
    payload.extend_from_slice(&len.to_be_bytes());
    payload.extend_from_slice(&header);
    payload.extend_from_slice(&tail);
    Ok(payload)
}

fn split(payload: &[u8]) -> Result<(&[u8], &[u8]), StoreError> {
    let bad = || StoreError::Codec("a stored trace does not decode".into());
    let len = u32::from_be_bytes(
        payload
            .get(..4)
            .ok_or_else(bad)?
            .try_into()
            .map_err(|_| bad())?,
    );
    let end = 4 + len as usize;
    Ok((payload.get(4..end).ok_or_else(bad)?, &payload[end..]))
}

pub(super) fn decode_header(payload: &[u8]) -> Result<Trace, StoreError> {
    decode(split(payload)?.0)
}

pub(super) fn decode_record(payload: &[u8]) -> Result<TraceRecord, StoreError> {
    let (header, tail) = split(payload)?;
    let tail: OwnedTail = decode(tail)?;
    Ok(TraceRecord {
        trace: decode(header)?,
        spans: tail.spans,
        cost_nanos: tail.cost_nanos,
    })
}

/// Whether a record's `head` (crc and entry) matches its payload.
pub(super) fn checks(head: &[u8], payload: &[u8]) -> bool {
    head.len() == RECORD_HEAD
        && u32::from_be_bytes([head[0], head[1], head[2], head[3]]) == crc(&head[4..], payload)
}

pub(super) fn crc(entry: &[u8], payload: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(entry);
    hasher.update(payload);
    hasher.finalize()
}
