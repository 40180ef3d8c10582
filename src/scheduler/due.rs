//! One due schedule's firing, planned and stored (`runners.md`
//! Scheduling §3–5): the slots the missed policy keeps, each a run (its
//! id derived from the slot; the overlap rule decides whether it waits,
//! runs beside or is skipped) or an outbox send; what cannot fire is a
//! recorded skip.

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, Metadata, OrgId, RunId, ScheduleId, StoreError, ThreadId};
use uuid::Uuid;

use super::cron::CronSchedule;
use super::plan::plan;
use super::{OutboxSend, Overlap, RecentFiring, ScheduledTask, TaskAction, slot_name, slot_run_id};
use crate::runners::{RunRecord, RunTrigger, TriggerKind, schema};
use crate::store::SledStore;
use crate::store::schedules::{Fired, Firing};

/// Plans and stores one due schedule's firing at `now` (`None`: it was
/// gone or not due any more).
pub(crate) fn fire_one(
    s: &SledStore,
    org: OrgId,
    agent: AgentId,
    id: ScheduleId,
    now: DateTime<Utc>,
) -> Result<Option<Fired>, StoreError> {
    let Some(task) = s.scheduled_task(org, agent, id)? else {
        return Ok(None);
    };
    let Some(due) = task.next_fire_at.filter(|at| *at <= now) else {
        return Ok(None);
    };
    if s.agent(org, agent)?.is_none_or(|a| a.is_deleted()) {
        s.delete_scheduled_tasks(org, agent)?;
        return Ok(None);
    }
    let schedule = match CronSchedule::parse(&task.cron, &task.timezone) {
        Ok(schedule) => schedule,
        Err((_, error)) => {
            // Stored patterns were checked on write; a newer croner could
            // still refuse one. The task stops rather than spins.
            tracing::error!(%error, schedule = %id, "a stored schedule does not parse; disabled");
            s.change_scheduled_task(org, agent, id, |t| {
                t.enabled = false;
                t.next_fire_at = None;
            })?;
            return Ok(None);
        }
    };
    let plan = plan(&schedule, due, now, &task.policy());
    let mut next = task.clone();
    next.version += 1;
    next.next_fire_at = plan.next;
    if plan.missed > 0 {
        let newest = plan.missed_newest.unwrap_or(due);
        next.record([RecentFiring::skipped(newest, "missed", Some(plan.missed))]);
    }
    let mut firing = Firing {
        task: next,
        runs: Vec::new(),
        max_queued: 0,
        sends: Vec::new(),
    };
    if !plan.fire.is_empty() {
        match &task.action {
            TaskAction::Run { runner_id, input } => {
                plan_runs(s, &task, *runner_id, input, &plan.fire, &mut firing)?;
            }
            TaskAction::Message { thread_id, content } => {
                plan_sends(s, &task, *thread_id, content, &plan.fire, &mut firing)?;
            }
        }
    }
    s.fire_schedule(&firing).map(Some)
}

/// Skips every slot of `fire` for `reason`.
fn skip_all(firing: &mut Firing, fire: &[DateTime<Utc>], reason: &str) {
    firing.task.record(
        fire.iter()
            .map(|slot| RecentFiring::skipped(*slot, reason, None)),
    );
}

/// The runs of a run action's slots, or their recorded skips.
fn plan_runs(
    s: &SledStore,
    task: &ScheduledTask,
    runner_id: confer_actors::RunnerId,
    input: &serde_json::Value,
    fire: &[DateTime<Utc>],
    firing: &mut Firing,
) -> Result<(), StoreError> {
    let runner = s
        .runner(task.org_id, runner_id)?
        .filter(|r| r.deleted_at.is_none() && r.agent_id == task.agent_id);
    let Some(runner) = runner else {
        skip_all(firing, fire, "runner_deleted");
        firing.task.enabled = false;
        firing.task.next_fire_at = None;
        return Ok(());
    };
    let valid = schema::compile(&runner.input_schema)
        .map(|v| schema::errors(&v, input).is_empty())
        .unwrap_or(false);
    if !valid {
        skip_all(firing, fire, "input_invalid");
        return Ok(());
    }
    let mut after = match task.last_run {
        Some(last) => s
            .run_status(task.org_id, last)?
            .filter(|status| !status.is_terminal())
            .map(|_| last),
        None => None,
    };
    match (task.overlap, after) {
        (Overlap::Skip, Some(_)) => {
            skip_all(firing, fire, "overlap");
            return Ok(());
        }
        (Overlap::Allow, _) => after = None,
        _ => {}
    }
    firing.max_queued = runner.max_queued_runs;
    for slot in fire {
        let mut metadata = Metadata::new();
        metadata.insert("scheduled_task_id".into(), task.id.to_string());
        metadata.insert("scheduled_for".into(), slot_name(*slot));
        let id = slot_run_id(task.id, *slot);
        let mut run = RunRecord::queued(
            &runner,
            input.clone(),
            metadata,
            RunTrigger {
                kind: TriggerKind::Schedule,
                id: Some(task.id.to_string()),
                scheduled_for: Some(*slot),
            },
            format!("schedule:{}", task.id),
        );
        run.run.id = id;
        run.run.thread_id = ThreadId(Uuid::new_v5(&id.0, b"thread"));
        run.progress.after = after;
        if task.overlap == Overlap::Queue {
            after = Some(id);
        }
        firing.runs.push((*slot, run));
    }
    Ok(())
}

/// The outbox sends of a message action's slots, or their recorded
/// skips.
fn plan_sends(
    s: &SledStore,
    task: &ScheduledTask,
    thread_id: ThreadId,
    content: &str,
    fire: &[DateTime<Utc>],
    firing: &mut Firing,
) -> Result<(), StoreError> {
    let usable = s
        .thread(task.org_id, thread_id)?
        .is_some_and(|t| t.agent_id == task.agent_id && t.origin.is_none());
    if !usable {
        skip_all(firing, fire, "thread_deleted");
        firing.task.enabled = false;
        firing.task.next_fire_at = None;
        return Ok(());
    }
    for slot in fire {
        firing.sends.push(OutboxSend {
            org_id: task.org_id,
            agent_id: task.agent_id,
            schedule_id: task.id,
            thread_id,
            content: content.to_owned(),
            slot: *slot,
            overlap: task.overlap,
        });
    }
    Ok(())
}

/// The run a queued run waits for (`overlap: queue`), if it has not ended.
pub fn waits_for(s: &SledStore, run: &RunRecord) -> Result<Option<RunId>, StoreError> {
    let Some(after) = run.progress.after else {
        return Ok(None);
    };
    Ok(s.run_status(run.org_id, after)?
        .filter(|status| !status.is_terminal())
        .map(|_| after))
}
