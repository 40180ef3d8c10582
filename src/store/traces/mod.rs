//! Traces (`observability.md`): each stored as its turn's answer commits,
//! in the trace files of `files` (not sled: see there why), and made
//! durable by the flush that acknowledges the answer. The day's analytics
//! aggregate waits in `day_merges` and is merged by that same flush.
//! Listing scans the days' indexes newest first; retention removes whole
//! days and a thread's deletion erases its traces, never the aggregates or
//! usage records.

mod entry;
mod files;
mod listing;
mod upkeep;

pub use entry::{IndexEntry, user_hash};
pub use files::{TRACES_DIR, TraceFiles};
pub use listing::{TracePage, TraceQuery, TraceScope};

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, OrgId, StoreError, ThreadId, TraceId, TraceRecord};

use super::keys;
use super::{SledStore, engine};
use crate::observability::aggregate::DayAggregate;
use crate::observability::analytics::{AGGREGATE_DAYS, DayEntry};

/// Traces a listing reads at most per request (filters may leave the page
/// short; it then ends with a cursor).
pub const SCAN_BUDGET: usize = 5_000;

/// Traces erased per batch when a thread is purged.
pub const SWEEP_BATCH: usize = 1_000;

/// A trace sealed and encoded for its answer's write.
pub(super) struct TraceWrite {
    /// The sealed record, for the trace listener (the OTLP export).
    pub(super) record: TraceRecord,
    entry: IndexEntry,
    payload: Vec<u8>,
    /// Its contribution, added to its org's and its user's day aggregates.
    day: DayAggregate,
    org_day: Vec<u8>,
    user_day: Vec<u8>,
}

impl TraceWrite {
    /// Seals `record` (its store span ends now, `bytes` written) and encodes it.
    pub(super) fn new(mut record: TraceRecord, bytes: u64) -> Result<Self, StoreError> {
        record.seal(bytes, Utc::now());
        let trace = &record.trace;
        let day = keys::day_number(trace.started_at);
        let org_day = keys::trace_day_key(trace.org_id, day, trace.agent_id, &trace.model);
        let user_day = keys::user_trace_day_key(
            trace.org_id,
            &trace.user_id,
            day,
            trace.agent_id,
            &trace.model,
        );
        Ok(Self {
            entry: IndexEntry::of(trace),
            payload: entry::encode(&record)?,
            day: DayAggregate::of_trace(&record),
            org_day,
            user_day,
            record,
        })
    }
}

/// The key range of `org`'s day aggregates (or of `user`'s in `org`) for
/// days `first..=last`. Every key in it is the start's length less 4,
/// then day, agent and model.
pub(crate) fn day_range(
    org: OrgId,
    user: Option<&str>,
    first: u32,
    last: u32,
) -> (Vec<u8>, Vec<u8>) {
    match user {
        None => (
            keys::trace_day(org, first),
            keys::trace_day(org, last.saturating_add(1)),
        ),
        Some(user) => (
            keys::user_trace_day(org, user, first),
            keys::user_trace_day(org, user, last.saturating_add(1)),
        ),
    }
}

/// The day, agent and model of the aggregate at `key`, whose day starts
/// at byte `at` (see [`day_range`]).
pub(crate) fn day_of_key(at: usize, key: &[u8]) -> Option<(u32, AgentId, String)> {
    let (Some(day), Some(agent)) = (key.get(at..at + 4), key.get(at + 4..at + 20)) else {
        return None;
    };
    let day = u32::from_be_bytes(day.try_into().unwrap_or_default());
    let agent = AgentId::from_bytes(agent.try_into().unwrap_or_default());
    let model = String::from_utf8_lossy(key.get(at + 20..).unwrap_or_default()).into_owned();
    Some((day, agent, model))
}

/// The entry of the aggregate `value` at `key` (see [`day_of_key`]);
/// `None`, said, when it does not decode.
pub(crate) fn day_entry(org: OrgId, at: usize, key: &[u8], value: &[u8]) -> Option<DayEntry> {
    let (day, agent, model) = day_of_key(at, key)?;
    match DayAggregate::decode(value) {
        Some(aggregate) => Some((day, agent, model, aggregate)),
        None => {
            tracing::error!(%org, day, "an analytics aggregate does not decode");
            None
        }
    }
}

impl SledStore {
    /// One stored trace with its spans.
    pub fn trace(&self, id: TraceId) -> Result<Option<TraceRecord>, StoreError> {
        match self.trace_files.find(id.as_bytes())? {
            Some(entry) => self.trace_files.record(&entry),
            None => Ok(None),
        }
    }

    /// After its answer's transaction: appends the trace to its day's file
    /// (durable with the flush that acknowledges the answer; a failed
    /// append loses the trace, never the answer), adds its
    /// contribution to its day's pending aggregate and tells the trace
    /// listener.
    pub(super) fn trace_stored(&self, write: TraceWrite) -> Result<(), StoreError> {
        // The answer is stored: a trace that cannot be written is lost (and
        // said), the answer is not failed for it.
        if let Err(error) = self.trace_files.append(write.entry, &write.payload) {
            tracing::error!(%error, trace = %write.record.trace.id, "a trace could not be stored");
        }
        self.day_merges.add(write.org_day, &write.day)?;
        self.day_merges.add(write.user_day, &write.day)?;
        if let Some(listener) = self.trace_listener.get() {
            listener(&write.record);
        }
        Ok(())
    }

    /// Stores `record` as a turn's commit does, without an answer (for tools
    /// and benchmarks).
    pub fn store_trace(&self, record: TraceRecord) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        self.trace_stored(TraceWrite::new(record, 0)?)
    }

    /// Merges `aggregate` into the day aggregate of (`org`, `day`, `agent`,
    /// `model`) (as a turn's commit does; for tools and benchmarks).
    pub fn merge_day_aggregate(
        &self,
        org: OrgId,
        day: u32,
        agent: AgentId,
        model: &str,
        aggregate: &DayAggregate,
    ) -> Result<(), StoreError> {
        let key = keys::trace_day_key(org, day, agent, model);
        self.trace_days
            .merge(key, aggregate.encode())
            .map_err(engine)?;
        Ok(())
    }

    /// Adds a model call made outside a turn (a memory collection's) to
    /// today's aggregates of its org and its user: its tokens and cost,
    /// no turn (durable with the next flush).
    pub fn add_call_to_days(
        &self,
        org: OrgId,
        user: &str,
        (agent, model): (AgentId, &str),
        call: &DayAggregate,
    ) -> Result<(), StoreError> {
        let day = keys::day_number(Utc::now());
        self.day_merges
            .add(keys::trace_day_key(org, day, agent, model), call)?;
        self.day_merges
            .add(keys::user_trace_day_key(org, user, day, agent, model), call)?;
        Ok(())
    }

    /// The day aggregates of `org` for days `first..=last`, with their day,
    /// agent and model.
    pub fn trace_days(
        &self,
        org: OrgId,
        first: u32,
        last: u32,
    ) -> Result<Vec<DayEntry>, StoreError> {
        self.day_aggregates(org, day_range(org, None, first, last))
    }

    /// `user`'s day aggregates in `org` for days `first..=last` (a user's
    /// analytics: kept per user as the turns commit, so no trace is read).
    pub fn user_trace_days(
        &self,
        org: OrgId,
        user: &str,
        first: u32,
        last: u32,
    ) -> Result<Vec<DayEntry>, StoreError> {
        self.day_aggregates(org, day_range(org, Some(user), first, last))
    }

    /// The aggregates in `start..end` (see [`day_range`]).
    fn day_aggregates(
        &self,
        org: OrgId,
        (start, end): (Vec<u8>, Vec<u8>),
    ) -> Result<Vec<DayEntry>, StoreError> {
        let at = start.len() - 4;
        let mut out = Vec::new();
        for entry in self.trace_days.range(start..end) {
            let (key, value) = entry.map_err(engine)?;
            out.extend(day_entry(org, at, &key, &value));
        }
        Ok(out)
    }

    /// Erases up to `batch` traces of `thread`, created at `created`;
    /// returns how many. Only the days since its creation (and the one
    /// before, for a clock stepped back) are read: a thread's purge costs
    /// its own life's days, not the whole retention's.
    pub fn remove_thread_traces(
        &self,
        thread: ThreadId,
        created: DateTime<Utc>,
        batch: usize,
    ) -> Result<usize, StoreError> {
        let _writing = self.gate.writing();
        let first = keys::day_number(created).saturating_sub(1);
        let mut erased = 0;
        for day in self.trace_files.days()?.into_iter().filter(|d| *d >= first) {
            erased += self.trace_files.erase(day, batch - erased, |entry| {
                &entry.thread == thread.as_bytes()
            })?;
            if erased == batch {
                break;
            }
        }
        Ok(erased)
    }

    /// Removes the traces of the days before `cutoff`'s (a day goes whole
    /// once all of it is past the retention) and the day aggregates past
    /// [`AGGREGATE_DAYS`]; returns how many traces went.
    pub fn sweep_traces(&self, cutoff: DateTime<Utc>) -> Result<usize, StoreError> {
        let removed = {
            let _writing = self.gate.writing();
            self.trace_files
                .remove_days_before(keys::day_number(cutoff))?
        };
        for org in self.orgs.iter().keys() {
            let org = org.map_err(engine)?;
            let Ok(bytes) = <[u8; 16]>::try_from(org.as_ref()) else {
                continue;
            };
            self.sweep_org_days(OrgId::from_bytes(bytes))?;
        }
        Ok(removed)
    }

    /// Removes `org`'s day aggregates older than [`AGGREGATE_DAYS`], its
    /// users' too.
    fn sweep_org_days(&self, org: OrgId) -> Result<(), StoreError> {
        let today = keys::day_number(Utc::now());
        let Some(oldest) = today.checked_sub(AGGREGATE_DAYS) else {
            return Ok(());
        };
        let _writing = self.gate.writing();
        let mut doomed = sled::Batch::default();
        let range = keys::trace_day(org, 0)..keys::trace_day(org, oldest);
        for key in self.trace_days.range(range).keys() {
            doomed.remove(key.map_err(engine)?);
        }
        // Per user: org ++ ff ff ff ff ++ user (16) ++ day.
        let users = keys::user_trace_days(org);
        let day_at = users.len() + 16;
        for key in self.trace_days.scan_prefix(&users).keys() {
            let key = key.map_err(engine)?;
            let day = key
                .get(day_at..day_at + 4)
                .and_then(|d| <[u8; 4]>::try_from(d).ok())
                .map(u32::from_be_bytes);
            if day.is_some_and(|day| day < oldest) {
                doomed.remove(key);
            }
        }
        self.trace_days.apply_batch(doomed).map_err(engine)
    }
}

#[cfg(test)]
mod file_tests;
#[cfg(test)]
mod tests;
