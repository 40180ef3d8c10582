//! Traces (`observability.md`): each stored with its turn's answer, in the
//! answer's transaction ([`TraceWrite`], used by the port's `append`), with
//! its four index entries; the day's analytics aggregate waits in
//! `day_merges` and is merged by the flush that acknowledges the answer
//! (sled's merge operator cannot run inside a transaction). Listing scans an index
//! newest first; retention and thread deletion remove traces, never the
//! aggregates or usage records.

use chrono::{DateTime, Utc};
use confer_actors::{OrgId, StoreError, ThreadId, Trace, TraceId, TraceRecord, TraceStatus};
use sled::transaction::{ConflictableTransactionError, TransactionalTree};

use super::codec::encode;
use super::keys::{self, TraceScope};
use super::{SledStore, engine};
use crate::observability::aggregate::DayAggregate;
use crate::observability::analytics::AGGREGATE_DAYS;

/// Traces a listing reads at most per request (filters may leave the page
/// short; it then ends with a cursor).
pub const SCAN_BUDGET: usize = 5_000;

/// Traces removed per batch by the retention sweep.
pub const SWEEP_BATCH: usize = 1_000;

/// The index prefixes of a trace: org, agent, user, thread.
fn scopes(trace: &Trace) -> [Vec<u8>; 4] {
    [
        TraceScope::Org(trace.org_id).prefix(),
        TraceScope::Agent(trace.org_id, trace.agent_id).prefix(),
        TraceScope::User(trace.org_id, &trace.user_id).prefix(),
        TraceScope::Thread(trace.thread_id).prefix(),
    ]
}

/// A trace encoded for the answer's transaction.
pub(super) struct TraceWrite {
    /// The sealed record, for the trace listener (the OTLP export).
    pub(super) record: TraceRecord,
    id: TraceId,
    value: Vec<u8>,
    index: [Vec<u8>; 4],
    day: (Vec<u8>, DayAggregate),
}

impl TraceWrite {
    /// Seals `record` (its store span ends now, `bytes` written) and encodes it.
    pub(super) fn new(mut record: TraceRecord, bytes: u64) -> Result<Self, StoreError> {
        record.seal(bytes, Utc::now());
        let trace = &record.trace;
        let at = keys::micros(trace.started_at);
        let id = trace.id;
        let index = scopes(trace).map(|prefix| keys::timeline(&prefix, at, id.as_bytes()));
        let day = keys::trace_day_key(
            trace.org_id,
            keys::day_number(trace.started_at),
            trace.agent_id,
            &trace.model,
        );
        let aggregate = DayAggregate::of_trace(&record);
        Ok(Self {
            id,
            value: encode(&record)?,
            index,
            day: (day, aggregate),
            record,
        })
    }

    /// Writes the trace and its index entries inside a transaction.
    pub(super) fn insert(
        &self,
        traces: &TransactionalTree,
        index: &TransactionalTree,
    ) -> Result<(), ConflictableTransactionError<StoreError>> {
        traces.insert(self.id.as_bytes(), self.value.as_slice())?;
        for key in &self.index {
            index.insert(key.as_slice(), &[])?;
        }
        Ok(())
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
        Self::get(&self.traces, id.as_bytes())
    }

    /// After a trace's transaction: adds its contribution to its day's
    /// pending aggregate and tells the trace listener.
    pub(super) fn trace_stored(&self, write: TraceWrite) -> Result<(), StoreError> {
        let (key, contribution) = write.day;
        self.day_merges.add(key, &contribution)?;
        if let Some(listener) = self.trace_listener.get() {
            listener(&write.record);
        }
        Ok(())
    }

    /// Merges `aggregate` into the day aggregate of (`org`, `day`, `agent`,
    /// `model`) (as a turn's commit does; for tools and benchmarks).
    pub fn merge_day_aggregate(
        &self,
        org: OrgId,
        day: u32,
        agent: confer_actors::AgentId,
        model: &str,
        aggregate: &DayAggregate,
    ) -> Result<(), StoreError> {
        let key = keys::trace_day_key(org, day, agent, model);
        self.trace_days
            .merge(key, aggregate.encode())
            .map_err(engine)?;
        Ok(())
    }

    /// A page of stored traces of `scope`, newest first; at most
    /// [`SCAN_BUDGET`] are read, and a page cut short by it ends with a cursor.
    pub fn traces(
        &self,
        scope: &TraceScope<'_>,
        query: &TraceQuery,
    ) -> Result<TracePage, StoreError> {
        let prefix = scope.prefix();
        let end = match query.before {
            Some((at, id)) => keys::timeline(&prefix, keys::micros(at), id.as_bytes()),
            None => keys::timeline_end(&prefix, None),
        };
        let start = match query.since {
            Some(since) => keys::timeline(&prefix, keys::micros(since), &[0; 16]),
            None => prefix.clone(),
        };
        let mut page = TracePage::default();
        let mut scanned = 0;
        let mut last = None;
        for entry in self.trace_index.range(start..end).rev() {
            let (key, _) = entry.map_err(engine)?;
            let Some(id) = keys::timeline_id(&key) else {
                continue;
            };
            if scanned == SCAN_BUDGET {
                page.next = last;
                return Ok(page);
            }
            scanned += 1;
            // An index entry whose trace a sweep just removed is skipped.
            let Some(record) = self.trace(TraceId::from_bytes(id))? else {
                continue;
            };
            let trace = record.trace;
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
        let prefix = scope.prefix();
        let start = keys::timeline(&prefix, keys::micros(from), &[0; 16]);
        let end = keys::timeline(&prefix, keys::micros(to), &[0; 16]);
        let mut out = Vec::new();
        for entry in self.trace_index.range(start..end) {
            let (key, _) = entry.map_err(engine)?;
            if let Some(id) = keys::timeline_id(&key)
                && let Some(record) = self.trace(TraceId::from_bytes(id))?
            {
                out.push(record);
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
    ) -> Result<Vec<(u32, confer_actors::AgentId, String, DayAggregate)>, StoreError> {
        let start = keys::trace_day(org, first);
        let end = keys::trace_day(org, last.saturating_add(1));
        let mut out = Vec::new();
        for entry in self.trace_days.range(start..end) {
            let (key, value) = entry.map_err(engine)?;
            let (Some(day), Some(agent)) = (key.get(16..20), key.get(20..36)) else {
                continue;
            };
            let day = u32::from_be_bytes(day.try_into().unwrap_or_default());
            let agent = confer_actors::AgentId::from_bytes(agent.try_into().unwrap_or_default());
            let model = String::from_utf8_lossy(key.get(36..).unwrap_or_default()).into_owned();
            match DayAggregate::decode(&value) {
                Some(aggregate) => out.push((day, agent, model, aggregate)),
                None => tracing::error!(%org, day, "an analytics aggregate does not decode"),
            }
        }
        Ok(out)
    }

    /// Removes up to `batch` traces of `thread`; returns how many.
    pub fn remove_thread_traces(
        &self,
        thread: ThreadId,
        batch: usize,
    ) -> Result<usize, StoreError> {
        let prefix = TraceScope::Thread(thread).prefix();
        self.remove_traces(self.trace_index.scan_prefix(prefix).keys(), batch)
    }

    /// Removes up to `batch` traces of `org` started before `cutoff`;
    /// returns how many.
    pub fn sweep_org_traces(
        &self,
        org: OrgId,
        cutoff: DateTime<Utc>,
        batch: usize,
    ) -> Result<usize, StoreError> {
        let prefix = TraceScope::Org(org).prefix();
        let end = keys::timeline(&prefix, keys::micros(cutoff), &[0; 16]);
        self.remove_traces(self.trace_index.range(prefix..end).keys(), batch)
    }

    /// Removes traces past the retention, org by org, in batches; returns
    /// how many.
    pub fn sweep_traces(&self, cutoff: DateTime<Utc>) -> Result<usize, StoreError> {
        let mut removed = 0;
        for org in self.orgs.iter().keys() {
            let org = org.map_err(engine)?;
            let Ok(bytes) = <[u8; 16]>::try_from(org.as_ref()) else {
                continue;
            };
            let org = OrgId::from_bytes(bytes);
            loop {
                let n = self.sweep_org_traces(org, cutoff, SWEEP_BATCH)?;
                removed += n;
                if n < SWEEP_BATCH {
                    break;
                }
            }
            self.sweep_org_days(org)?;
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

    /// Removes the traces named by the index `entries` (at most `batch`),
    /// their index entries first.
    fn remove_traces(
        &self,
        entries: impl Iterator<Item = sled::Result<sled::IVec>>,
        batch: usize,
    ) -> Result<usize, StoreError> {
        let _writing = self.gate.writing();
        let mut ids = Vec::new();
        for key in entries.take(batch) {
            if let Some(id) = keys::timeline_id(&key.map_err(engine)?) {
                ids.push(TraceId::from_bytes(id));
            }
        }
        let mut index = sled::Batch::default();
        let mut records = sled::Batch::default();
        for id in &ids {
            if let Some(record) = self.trace(*id)? {
                let at = keys::micros(record.trace.started_at);
                for prefix in scopes(&record.trace) {
                    index.remove(keys::timeline(&prefix, at, id.as_bytes()));
                }
            }
            records.remove(id.as_bytes());
        }
        self.trace_index.apply_batch(index).map_err(engine)?;
        self.traces.apply_batch(records).map_err(engine)?;
        Ok(ids.len())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::Arc;

    use confer_actors::trace::{Stamp, TraceRecorder, TraceStart};
    use confer_actors::{AgentId, Metadata, RunningTraces, ThreadAppend, ThreadStore};

    use super::*;
    use crate::store::{reopen_for_test, test_thread};

    fn finished(org: OrgId, agent: AgentId, thread: ThreadId, user: &str) -> TraceRecord {
        let running = Arc::new(RunningTraces::default());
        let mut recorder = TraceRecorder::start(
            TraceStart {
                org,
                agent,
                thread,
                user_id: user.into(),
                model: "gpt-4.1".into(),
                turn: 1,
                if_busy: None,
                otel_trace_id: None,
                started: Stamp::now(),
                payloads: false,
            },
            &running,
        );
        recorder.finish(TraceStatus::Ok, None, "gpt-4.1".into(), Metadata::new())
    }

    fn query(limit: usize) -> TraceQuery {
        TraceQuery {
            agent: None,
            status: None,
            q: None,
            since: None,
            until: None,
            before: None,
            limit,
        }
    }

    #[test]
    fn traces_are_indexed_paged_and_removed_while_aggregates_stay() {
        let dir = tempfile::tempdir().unwrap();
        let store = reopen_for_test(dir.path());
        let (org, agent) = (OrgId::new(), AgentId::new());
        let thread = test_thread(org, agent, "alice");
        let mut ids = Vec::new();
        for user in ["alice", "bob", "alice"] {
            let record = finished(org, agent, thread.id, user);
            ids.push(record.trace.id);
            let write = ThreadAppend {
                trace: Some(Box::new(record)),
                ..ThreadAppend::default()
            };
            store.append(thread.id, write).unwrap();
        }
        let all = store.traces(&TraceScope::Org(org), &query(10)).unwrap();
        let listed: Vec<TraceId> = all.traces.iter().map(|t| t.id).collect();
        assert_eq!(listed, [ids[2], ids[1], ids[0]], "newest first");
        assert!(all.next.is_none());
        // The store span was ended and sized by the write.
        let stored = store.trace(ids[0]).unwrap().unwrap();
        assert!(stored.trace.ended_at.is_some());
        // One at a time, each once.
        let mut seen = Vec::new();
        let mut q = query(1);
        loop {
            let page = store.traces(&TraceScope::Org(org), &q).unwrap();
            seen.extend(page.traces.iter().map(|t| t.id));
            match page.next {
                Some(next) => q.before = Some(next),
                None => break,
            }
        }
        assert_eq!(seen, listed);
        let alice = store
            .traces(&TraceScope::User(org, "alice"), &query(10))
            .unwrap();
        assert_eq!(alice.traces.len(), 2);
        let other_org = store
            .traces(&TraceScope::Org(OrgId::new()), &query(10))
            .unwrap();
        assert!(other_org.traces.is_empty());
        let today = keys::day_number(Utc::now());
        // The day aggregates wait for the flush that acknowledges the turns.
        assert!(store.trace_days(org, today, today).unwrap().is_empty());
        store.flush_now().unwrap();
        let days = store.trace_days(org, today, today).unwrap();
        assert_eq!(days.len(), 1);
        assert_eq!(days[0].3.turns, 3);
        assert_eq!(days[0].3.users.count(), 2);
        // A swept org loses its traces, not its aggregates.
        let later = Utc::now() + chrono::TimeDelta::seconds(1);
        assert_eq!(store.sweep_org_traces(org, later, 2).unwrap(), 2);
        assert_eq!(store.remove_thread_traces(thread.id, 10).unwrap(), 1);
        for scope in [
            TraceScope::Org(org),
            TraceScope::Agent(org, agent),
            TraceScope::User(org, "alice"),
            TraceScope::Thread(thread.id),
        ] {
            assert!(store.traces(&scope, &query(10)).unwrap().traces.is_empty());
        }
        assert_eq!(store.trace_index.len(), 0);
        assert_eq!(store.traces.len(), 0);
        assert_eq!(store.trace_days(org, today, today).unwrap()[0].3.turns, 3);
    }

    #[test]
    fn a_backup_holds_the_aggregates_of_the_traces_it_holds() {
        let dir = tempfile::tempdir().unwrap();
        let store = reopen_for_test(dir.path());
        let (org, agent) = (OrgId::new(), AgentId::new());
        let thread = test_thread(org, agent, "alice");
        let write = ThreadAppend {
            trace: Some(Box::new(finished(org, agent, thread.id, "alice"))),
            ..ThreadAppend::default()
        };
        store.append(thread.id, write).unwrap();
        let today = keys::day_number(Utc::now());
        assert!(store.trace_days(org, today, today).unwrap().is_empty());
        store.write_backup(Vec::new(), false).unwrap();
        assert_eq!(store.trace_days(org, today, today).unwrap()[0].3.turns, 1);
    }

    #[test]
    fn a_listing_reads_at_most_its_budget_and_ends_with_a_cursor() {
        let dir = tempfile::tempdir().unwrap();
        let store = reopen_for_test(dir.path());
        let (org, agent) = (OrgId::new(), AgentId::new());
        let thread = test_thread(org, agent, "alice");
        for _ in 0..SCAN_BUDGET + 5 {
            let write = ThreadAppend {
                trace: Some(Box::new(finished(org, agent, thread.id, "alice"))),
                ..ThreadAppend::default()
            };
            store.append(thread.id, write).unwrap();
        }
        // No trace is `error`: the budget runs out with an empty page.
        let mut q = query(10);
        q.status = Some(TraceStatus::Error);
        let page = store.traces(&TraceScope::Org(org), &q).unwrap();
        assert!(page.traces.is_empty());
        let next = page.next.expect("a cursor where the budget ran out");
        q.before = Some(next);
        let rest = store.traces(&TraceScope::Org(org), &q).unwrap();
        assert!(rest.next.is_none(), "the last 5 fit in the next budget");
    }
}
