//! Reading the traces: whose ([`TraceScope`]), which ([`TraceQuery`]), a
//! page newest first from the day indexes ([`SledStore::traces`]) and a
//! user's traces of a period (its analytics), and a trace found by id
//! ([`TraceFiles::find`]).

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, OrgId, ThreadId};
use confer_actors::{StoreError, Trace, TraceId, TraceStatus};

use super::entry::day_of_micros;
use super::{IndexEntry, SCAN_BUDGET, TraceFiles, user_hash};
use crate::store::{SledStore, keys};

/// Whose traces a listing reads: an org's, an agent's or a user's in an
/// org, or a thread's.
#[derive(Clone, Debug)]
pub enum TraceScope {
    Org(OrgId),
    Agent(OrgId, AgentId),
    User(OrgId, String),
    Thread(ThreadId),
}

impl TraceScope {
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
    pub fn holds(&self, trace: &Trace) -> bool {
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

/// What a logs listing asks for.
#[derive(Clone, Debug)]
pub struct TraceQuery {
    pub agent: Option<confer_actors::AgentId>,
    /// A runner's run turns only, or one run's.
    pub runner: Option<confer_actors::RunnerId>,
    pub run: Option<confer_actors::RunId>,
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
            runner: None,
            run: None,
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
            && self.runner.is_none_or(|r| trace.runner_id == Some(r))
            && self.run.is_none_or(|r| trace.run_id == Some(r))
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
    pub fn traces(&self, scope: &TraceScope, query: &TraceQuery) -> Result<TracePage, StoreError> {
        let user = scope.user_hash();
        let since = query.since.map(|t| t.timestamp_micros());
        let until = query.until.map(|t| t.timestamp_micros());
        let before = query
            .before
            .map(|(at, id)| (at.timestamp_micros(), *id.as_bytes()));
        let upper = query
            .until
            .into_iter()
            .chain(query.before.map(|(at, _)| at))
            .min();
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
}

/// Keeps the `keep` newest of `entries`, newest first.
fn newest(entries: &mut Vec<IndexEntry>, keep: usize) {
    entries.sort_unstable_by_key(|e| std::cmp::Reverse(e.order()));
    entries.truncate(keep);
}

impl TraceFiles {
    /// The entry of the trace `id`, looked up in the days it may have
    /// started on (its UUIDv7 time's, and a neighbour when that is within
    /// an hour of midnight).
    pub fn find(&self, id: &[u8; 16]) -> Result<Option<IndexEntry>, StoreError> {
        let uuid = uuid::Uuid::from_bytes(*id);
        let Some((seconds, _)) = uuid.get_timestamp().map(|t| t.to_unix()) else {
            return Ok(None);
        };
        let micros = i64::try_from(seconds)
            .unwrap_or(0)
            .saturating_mul(1_000_000);
        let day = day_of_micros(micros);
        // A trace starts a moment before its id is made, so within the first
        // hour of a day it may be filed under the day before; within the
        // last, under the next (a clock stepped back meanwhile).
        let mut days = vec![day];
        let of_day = micros.rem_euclid(86_400_000_000);
        if of_day < 3_600_000_000 && day > 0 {
            days.push(day - 1);
        } else if of_day >= 23 * 3_600_000_000 {
            days.push(day + 1);
        }
        for day in days {
            let mut found = None;
            self.scan(day, |entry| {
                if &entry.id == id {
                    found = Some(*entry);
                }
                found.is_none()
            })?;
            if found.is_some() {
                return Ok(found);
            }
        }
        Ok(None)
    }
}
