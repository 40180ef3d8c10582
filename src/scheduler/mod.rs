//! The one durable scheduler (`runners.md` Scheduling) for agents'
//! scheduled tasks (and, through the same records, runners' schedule
//! triggers). A task is a cron pattern in a time zone, an action (a
//! message to a thread of the agent, or a run of one of its runners) and
//! the missed-run and overlap policies.
//!
//! The rule that makes it durable: a due schedule fires in one store
//! transaction that checks `next_fire_at` is still as read, creates each
//! fired slot's run with the id `UUIDv5(schedule, slot)` (or writes the
//! message's outbox entry, keyed by slot) and advances `next_fire_at`;
//! work starts after the flush. A restart, kill -9 included, finds either
//! the slot unfired or its run made, never both.
//!
//! `cron` parses patterns, `plan` picks the slots, `due` plans and stores
//! a firing, `rules` checks a PUT's items, `firing` is the task that
//! sleeps until the earliest schedule (on sled), `cluster` the rounds of a
//! node on PostgreSQL;
//! the store's layout is `crate::store::schedules`, the routes
//! `crate::api::scheduled_tasks`.

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, OrgId, RunId, RunnerId, ScheduleId, ThreadId};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

mod cluster;
pub mod cron;
pub mod due;
pub mod firing;
pub mod plan;
pub mod rules;

/// Entries kept in a task's `recent`.
pub const RECENT_KEPT: usize = 20;
/// Tasks an agent may have.
pub const MAX_TASKS_PER_AGENT: usize = 100;

/// What a task does at each slot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TaskAction {
    /// Sends `content` to a thread of the agent, as sender
    /// `schedule:{id}`.
    Message {
        #[schema(value_type = uuid::Uuid)]
        thread_id: ThreadId,
        content: String,
    },
    /// Starts a run of one of the agent's runners with `input`.
    Run {
        #[schema(value_type = uuid::Uuid)]
        runner_id: RunnerId,
        #[schema(value_type = Value)]
        input: Value,
    },
}

/// What happens to slots older than the grace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Missed {
    /// None fires.
    #[default]
    Skip,
    /// The newest fires.
    RunOnce,
    /// The newest `catch_up_max` fire, oldest first.
    CatchUp,
}

/// What a slot does while an earlier firing is unfinished.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Overlap {
    /// It is skipped (and recorded).
    #[default]
    Skip,
    /// It waits for the earlier one.
    Queue,
    /// It runs beside it (a message still queues on its thread).
    Allow,
}

/// One entry of a task's `recent`: a slot fired, or skipped and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RecentFiring {
    /// The slot; for a `missed` entry, the newest slot it counts.
    pub slot: DateTime<Utc>,
    /// `fired` or `skipped`.
    pub outcome: String,
    /// Why it was skipped: `missed`, `overlap`, `queue_full`,
    /// `input_invalid`, `runner_deleted`, `thread_deleted`, or a refusal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The slots a `missed` entry counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<uuid::Uuid>)]
    pub run_id: Option<RunId>,
    pub at: DateTime<Utc>,
}

impl RecentFiring {
    /// A fired slot (`run`: the run it made).
    pub fn fired(slot: DateTime<Utc>, run: Option<RunId>) -> Self {
        Self {
            slot,
            outcome: "fired".into(),
            reason: None,
            count: None,
            run_id: run,
            at: Utc::now(),
        }
    }

    /// A skipped slot.
    pub fn skipped(slot: DateTime<Utc>, reason: &str, count: Option<u64>) -> Self {
        Self {
            slot,
            outcome: "skipped".into(),
            reason: Some(reason.into()),
            count,
            run_id: None,
            at: Utc::now(),
        }
    }
}

/// A scheduled task of an agent, as stored and answered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ScheduledTask {
    #[schema(value_type = uuid::Uuid)]
    pub id: ScheduleId,
    #[schema(value_type = uuid::Uuid)]
    pub org_id: OrgId,
    #[schema(value_type = uuid::Uuid)]
    pub agent_id: AgentId,
    pub name: String,
    pub cron: String,
    pub timezone: String,
    pub enabled: bool,
    pub action: TaskAction,
    pub missed: Missed,
    pub catch_up_max: u32,
    /// `None`: half the gap to the next slot, 5 s to 1 h.
    pub grace_secs: Option<u64>,
    pub overlap: Overlap,
    /// The first unfired slot; `None` while disabled (or with no slot
    /// left).
    pub next_fire_at: Option<DateTime<Utc>>,
    /// The newest firings and skips, newest first.
    pub recent: Vec<RecentFiring>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Bumped by every change: a firing is compare-and-swap on it.
    #[serde(default)]
    #[schema(ignore)]
    pub version: u64,
    /// The newest run this task made (the overlap rule looks at it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(ignore)]
    pub last_run: Option<RunId>,
    /// Set on a runner's schedule trigger (its runner): such a task is
    /// listed and changed through the runner's triggers, never by the
    /// agent's PUT.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(ignore)]
    pub runner_trigger: Option<RunnerId>,
}

impl ScheduledTask {
    /// Adds `entries` (oldest first) to `recent`, keeping the newest
    /// [`RECENT_KEPT`].
    pub fn record(&mut self, entries: impl IntoIterator<Item = RecentFiring>) {
        for entry in entries {
            self.recent.insert(0, entry);
        }
        self.recent.truncate(RECENT_KEPT);
    }

    /// The policies the plan needs.
    pub fn policy(&self) -> plan::Policy {
        plan::Policy {
            missed: self.missed,
            catch_up_max: self.catch_up_max,
            grace_secs: self.grace_secs,
        }
    }
}

/// The id of the run a schedule makes for `slot`: `UUIDv5(schedule,
/// slot)`, the slot written as RFC 3339 in UTC with microseconds.
pub fn slot_run_id(schedule: ScheduleId, slot: DateTime<Utc>) -> RunId {
    RunId(Uuid::new_v5(&schedule.0, slot_name(slot).as_bytes()))
}

/// A slot's name in run ids and idempotency keys.
pub fn slot_name(slot: DateTime<Utc>) -> String {
    slot.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}

/// A message action's send, kept in the outbox from the firing's
/// transaction until the thread's actor admitted it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutboxSend {
    pub org_id: OrgId,
    pub agent_id: AgentId,
    pub schedule_id: ScheduleId,
    pub thread_id: ThreadId,
    pub content: String,
    pub slot: DateTime<Utc>,
    pub overlap: Overlap,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_run_id_is_uuid_v5_of_the_schedule_and_the_slot() {
        let schedule = ScheduleId::new();
        let slot = DateTime::parse_from_rfc3339("2026-03-08T07:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let id = slot_run_id(schedule, slot);
        assert_eq!(id.0.get_version_num(), 5);
        assert_eq!(id, slot_run_id(schedule, slot));
        assert_eq!(
            id.0,
            Uuid::new_v5(&schedule.0, b"2026-03-08T07:00:00.000000Z")
        );
        assert_ne!(
            id,
            slot_run_id(schedule, slot + chrono::Duration::seconds(1))
        );
    }

    #[test]
    fn recent_keeps_the_newest_twenty_newest_first() {
        let at = Utc::now();
        let mut task = rules::tests::task();
        task.record((0..25).map(|i| RecentFiring::fired(at + chrono::Duration::seconds(i), None)));
        assert_eq!(task.recent.len(), RECENT_KEPT);
        assert_eq!(task.recent[0].slot, at + chrono::Duration::seconds(24));
    }
}
