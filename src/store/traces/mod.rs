//! Traces (`observability.md`): each stored as its turn's answer commits,
//! in the trace files of `files` (not sled: see there why), and made
//! durable by the flush that acknowledges the answer. The day's analytics
//! aggregate waits in `day_merges` and is merged by that same flush.
//! Listing scans the days' indexes newest first; retention removes whole
//! days and a thread's deletion erases its traces, never the aggregates or
//! usage records.

mod entry;
mod files;
mod upkeep;

pub use entry::{IndexEntry, user_hash};
pub use files::{TRACES_DIR, TraceFiles};

use chrono::{DateTime, Utc};
use confer_actors::{
    AgentId, OrgId, StoreError, ThreadId, Trace, TraceId, TraceRecord, TraceStatus,
};

use super::keys;
use super::{SledStore, engine};
use crate::observability::aggregate::DayAggregate;
use crate::observability::analytics::AGGREGATE_DAYS;

/// Traces a listing reads at most per request (filters may leave the page
/// short; it then ends with a cursor).
pub const SCAN_BUDGET: usize = 5_000;

/// Traces erased per batch when a thread is purged.
pub const SWEEP_BATCH: usize = 1_000;

/// Whose traces a listing reads: an org's, an agent's or a user's in an
/// org, or a thread's.
#[derive(Clone, Debug)]
pub enum TraceScope<'a> {
    Org(OrgId),
    Agent(OrgId, AgentId),
    User(OrgId, &'a str),
    Thread(ThreadId),
}

impl TraceScope<'_> {
    /// Whether `entry` is in the scope (a user's by the hash of its id; the
    /// header confirms it, see [`Self::holds`]).
    fn admits(&self, entry: &IndexEntry, user: Option<&[u8; 8]>) -> bool {
        match self {
            Self::Org(org) => &entry.org == org.as_bytes(),
            Self::Agent(org, agent) => {
                &entry.org == org.as_bytes() && &entry.agent == agent.as_bytes()
            }
            Self::User(org, _) => &entry.org == org.as_bytes() && Some(&entry.user) == user,
            Self::Thread(thread) => &entry.thread == thread.as_bytes(),
        }
    }

    /// Whether the stored header is in the scope (a user hash can collide).
    fn holds(&self, trace: &Trace) -> bool {
        match self {
            Self::User(_, user) => trace.user_id == *user,
            _ => true,
        }
    }

    fn user_hash(&self) -> Option<[u8; 8]> {
        match self {
            Self::User(_, user) => Some(user_hash(user)),
            _ => None,
        }
    }
}

/// A trace sealed and encoded for its answer's write.
pub(super) struct TraceWrite {
    /// The sealed record, for the trace listener (the OTLP export).
    pub(super) record: TraceRecord,
    entry: IndexEntry,
    payload: Vec<u8>,
    day: (Vec<u8>, DayAggregate),
}

impl TraceWrite {
    /// Seals `record` (its store span ends now, `bytes` written) and encodes it.
    pub(super) fn new(mut record: TraceRecord, bytes: u64) -> Result<Self, StoreError> {
        record.seal(bytes, Utc::now());
        let trace = &record.trace;
        let day = keys::trace_day_key(
            trace.org_id,
            keys::day_number(trace.started_at),
            trace.agent_id,
            &trace.model,
        );
        let aggregate = DayAggregate::of_trace(&record);
        Ok(Self {
            entry: IndexEntry::of(trace),
            payload: entry::encode(&record)?,
            day: (day, aggregate),
            record,
        })
    }
}

/// What a logs listing asks for.
#[derive(Clone, Debug)]
pub struct TraceQuery {
    pub agent: Option<confer_actors::AgentId>,
    pub status: Option<TraceStatus>,
    /// A substring of `model` or `error_code`.
    pub q: Option<String>,
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    /// Strictly older than this (`started_at`, id).
    pub before: Option<(DateTime<Utc>, TraceId)>,
    pub limit: usize,
}

impl TraceQuery {
    /// The newest `limit` traces, unfiltered (the first page).
    pub fn newest(limit: usize) -> Self {
        Self {
            agent: None,
            status: None,
            q: None,
            since: None,
            until: None,
            before: None,
            limit,
        }
    }

    /// Whether `trace` passes the filters other than the scope.
    pub fn accepts(&self, trace: &Trace) -> bool {
        self.agent.is_none_or(|a| a == trace.agent_id)
            && self.status.is_none_or(|s| s == trace.status)
            && self.q.as_deref().is_none_or(|q| {
                trace.model.contains(q)
                    || trace.error_code.as_deref().is_some_and(|c| c.contains(q))
            })
            && self.since.is_none_or(|t| trace.started_at >= t)
            && self.until.is_none_or(|t| trace.started_at < t)
    }
}

impl TraceQuery {
    /// Whether `trace` comes after the cursor (strictly older).
    pub fn is_before(&self, trace: &Trace) -> bool {
        self.before
            .is_none_or(|(at, id)| (trace.started_at, trace.id) < (at, id))
    }
}

/// A page of traces, newest first.
#[derive(Debug, Default)]
pub struct TracePage {
    pub traces: Vec<Trace>,
    /// Where the next page starts, when one may follow.
    pub next: Option<(DateTime<Utc>, TraceId)>,
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
        let (key, contribution) = write.day;
        self.day_merges.add(key, &contribution)?;
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

    /// The days with traces that may hold ones started in
    /// [`from`, `to`) (either open), newest first.
    fn trace_days_between(
        &self,
        from: Option<DateTime<Utc>>,
        to: Option<DateTime<Utc>>,
    ) -> Result<Vec<u32>, StoreError> {
        let first = from.map_or(0, keys::day_number);
        let last = to.map_or(u32::MAX, keys::day_number);
        let mut days = self.trace_files.days()?;
        days.retain(|d| (first..=last).contains(d));
        days.reverse();
        Ok(days)
    }

    /// A page of stored traces of `scope`, newest first; at most
    /// [`SCAN_BUDGET`] are read, and a page cut short by it ends with a cursor.
    pub fn traces(
        &self,
        scope: &TraceScope<'_>,
        query: &TraceQuery,
    ) -> Result<TracePage, StoreError> {
        let user = scope.user_hash();
        let since = query.since.map(|t| t.timestamp_micros());
        let until = query.until.map(|t| t.timestamp_micros());
        let before = query
            .before
            .map(|(at, id)| (at.timestamp_micros(), *id.as_bytes()));
        let upper = match (query.until, query.before) {
            (Some(until), Some((at, _))) => Some(until.min(at)),
            (until, before) => until.or(before.map(|(at, _)| at)),
        };
        let mut page = TracePage::default();
        let mut scanned = 0;
        let mut last = None;
        for day in self.trace_days_between(query.since, upper)? {
            // The day's candidates, newest first: only the newest the budget
            // can read are kept.
            let room = SCAN_BUDGET - scanned;
            let mut found = Vec::new();
            self.trace_files.scan(day, |entry| {
                let order = entry.order();
                if scope.admits(entry, user.as_ref())
                    && query.status.is_none_or(|s| entry.has_status(s))
                    && since.is_none_or(|t| order.0 >= t)
                    && until.is_none_or(|t| order.0 < t)
                    && before.is_none_or(|b| order < b)
                {
                    found.push(*entry);
                    if found.len() >= 2 * room.max(1) {
                        newest(&mut found, room);
                    }
                }
                true
            })?;
            newest(&mut found, room);
            for entry in found {
                if scanned == SCAN_BUDGET {
                    page.next = last;
                    return Ok(page);
                }
                scanned += 1;
                // An entry whose trace was erased meanwhile is skipped.
                let Some(trace) = self.trace_files.header(&entry)? else {
                    continue;
                };
                if !scope.holds(&trace) {
                    continue;
                }
                last = Some((trace.started_at, trace.id));
                if !query.accepts(&trace) {
                    continue;
                }
                if page.traces.len() == query.limit {
                    page.next = page.traces.last().map(|t| (t.started_at, t.id));
                    return Ok(page);
                }
                page.traces.push(trace);
            }
            if scanned == SCAN_BUDGET {
                page.next = last;
                return Ok(page);
            }
        }
        Ok(page)
    }

    /// The stored traces of `scope` started in [`from`, `to`), oldest
    /// first (the analytics of a U).
    pub fn traces_between(
        &self,
        scope: &TraceScope<'_>,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> Result<Vec<TraceRecord>, StoreError> {
        let user = scope.user_hash();
        let (start, end) = (from.timestamp_micros(), to.timestamp_micros());
        let mut days = self.trace_days_between(Some(from), Some(to))?;
        days.reverse();
        let mut out = Vec::new();
        for day in days {
            let mut found = Vec::new();
            self.trace_files.scan(day, |entry| {
                if scope.admits(entry, user.as_ref()) && (start..end).contains(&entry.started_us) {
                    found.push(*entry);
                }
                true
            })?;
            found.sort_unstable_by_key(IndexEntry::order);
            for entry in found {
                if let Some(record) = self.trace_files.record(&entry)?
                    && scope.holds(&record.trace)
                {
                    out.push(record);
                }
            }
        }
        Ok(out)
    }

    /// The day aggregates of `org` for days `first..=last`, with their day,
    /// agent and model.
    pub fn trace_days(
        &self,
        org: OrgId,
        first: u32,
        last: u32,
    ) -> Result<Vec<(u32, AgentId, String, DayAggregate)>, StoreError> {
        let start = keys::trace_day(org, first);
        let end = keys::trace_day(org, last.saturating_add(1));
        let mut out = Vec::new();
        for entry in self.trace_days.range(start..end) {
            let (key, value) = entry.map_err(engine)?;
            let (Some(day), Some(agent)) = (key.get(16..20), key.get(20..36)) else {
                continue;
            };
            let day = u32::from_be_bytes(day.try_into().unwrap_or_default());
            let agent = AgentId::from_bytes(agent.try_into().unwrap_or_default());
            let model = String::from_utf8_lossy(key.get(36..).unwrap_or_default()).into_owned();
            match DayAggregate::decode(&value) {
                Some(aggregate) => out.push((day, agent, model, aggregate)),
                None => tracing::error!(%org, day, "an analytics aggregate does not decode"),
            }
        }
        Ok(out)
    }

    /// Erases up to `batch` traces of `thread`; returns how many.
    pub fn remove_thread_traces(
        &self,
        thread: ThreadId,
        batch: usize,
    ) -> Result<usize, StoreError> {
        let _writing = self.gate.writing();
        let mut erased = 0;
        for day in self.trace_files.days()? {
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

    /// Removes `org`'s day aggregates older than [`AGGREGATE_DAYS`].
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
        self.trace_days.apply_batch(doomed).map_err(engine)
    }
}

/// Keeps the `keep` newest of `entries`, newest first.
fn newest(entries: &mut Vec<IndexEntry>, keep: usize) {
    entries.sort_unstable_by_key(|e| std::cmp::Reverse(e.order()));
    entries.truncate(keep);
}

#[cfg(test)]
mod tests;
