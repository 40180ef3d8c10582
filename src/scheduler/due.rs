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

/// A task's firing begun at `now` (see [`begin`]).
pub(crate) enum Begun {
    /// It has no slot due at `now`.
    NotDue,
    /// Its stored pattern no longer parses: the caller disables it.
    Unparsable,
    /// Its next slot and missed skips are set; `fire` are the slots to
    /// fire, oldest first.
    Due {
        firing: Box<Firing>,
        fire: Vec<DateTime<Utc>>,
    },
}

/// Begins `task`'s firing at `now`: the slots the missed policy keeps and
/// the task as it will be stored, its version bumped; what each slot does
/// is its action's (a run, an outbox send).
pub(crate) fn begin(task: &ScheduledTask, now: DateTime<Utc>) -> Begun {
    let Some(due) = task.next_fire_at.filter(|at| *at <= now) else {
        return Begun::NotDue;
    };
    let schedule = match CronSchedule::parse(&task.cron, &task.timezone) {
        Ok(schedule) => schedule,
        Err((_, error)) => {
            // Stored patterns were checked on write; a newer croner could
            // still refuse one. The task stops rather than spins.
            tracing::error!(%error, schedule = %task.id, "a stored schedule does not parse; disabled");
            return Begun::Unparsable;
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
    Begun::Due {
        firing: Box::new(Firing {
            task: next,
            runs: Vec::new(),
            max_queued: 0,
            sends: Vec::new(),
        }),
        fire: plan.fire,
    }
}

/// Stops `task` from firing again (its target is gone, or its pattern).
pub(crate) fn disable(task: &mut ScheduledTask) {
    task.enabled = false;
    task.next_fire_at = None;
}

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
    if task.next_fire_at.is_none_or(|at| at > now) {
        return Ok(None);
    }
    if s.agent(org, agent)?.is_none_or(|a| a.is_deleted()) {
        s.delete_scheduled_tasks(org, agent)?;
        return Ok(None);
    }
    let (mut firing, fire) = match begin(&task, now) {
        Begun::NotDue => return Ok(None),
        Begun::Unparsable => {
            s.change_scheduled_task(org, agent, id, disable)?;
            return Ok(None);
        }
        Begun::Due { firing, fire } => (firing, fire),
    };
    if !fire.is_empty() {
        match &task.action {
            TaskAction::Run { runner_id, input } => {
                plan_runs(s, &task, *runner_id, input, &fire, &mut firing)?;
            }
            TaskAction::Message { thread_id, content } => {
                let usable = s
                    .thread(org, *thread_id)?
                    .is_some_and(|t| t.agent_id == agent && t.origin.is_none());
                plan_sends(&task, *thread_id, content, usable, &fire, &mut firing);
            }
        }
    }
    s.fire_schedule(&firing).map(Some)
}

/// Skips every slot of `fire` for `reason`.
pub(crate) fn skip_all(firing: &mut Firing, fire: &[DateTime<Utc>], reason: &str) {
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
        disable(&mut firing.task);
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

/// The outbox sends of a message action's slots, or (`usable` false: the
/// thread is gone or not the agent's) their recorded skips.
pub(crate) fn plan_sends(
    task: &ScheduledTask,
    thread_id: ThreadId,
    content: &str,
    usable: bool,
    fire: &[DateTime<Utc>],
    firing: &mut Firing,
) {
    if !usable {
        skip_all(firing, fire, "thread_deleted");
        disable(&mut firing.task);
        return;
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
