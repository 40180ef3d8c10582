//! The scheduler's task (`runners.md` Scheduling §2–5): it sleeps until
//! the earliest `next_fire_at`, a change or 60 s; fires what is due in
//! batches, each batch's transactions made durable by one flush before
//! any of their work starts; then hands the runs to the run worker and
//! sends the outbox's messages to their threads' actors (a turn never
//! waits for the scheduler: the frames go to the thread's log).

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use confer_actors::{
    Admission, IfBusy, Metadata, OrgId, Refusal, RunId, Runtime, ScheduleId, StoreError, ThreadId,
    ThreadStore, TurnRequest,
};
use tokio::sync::Notify;
use uuid::Uuid;

use super::cron::CronSchedule;
use super::plan::plan;
use super::{OutboxSend, Overlap, RecentFiring, ScheduledTask, TaskAction, slot_name, slot_run_id};
use crate::runners::worker::RunWorker;
use crate::runners::{RunRecord, RunTrigger, TriggerKind, schema};
use crate::store::schedules::{Fired, Firing};
use crate::store::{SledStore, Store};

/// Schedules fired per batch (one flush each).
const BATCH: usize = 256;
/// Outbox sends handed to actors per pass.
const OUTBOX_PAGE: usize = 256;
/// The longest sleep between two looks at the due index.
const MAX_SLEEP: Duration = Duration::from_secs(60);

/// The scheduler: one per server.
pub struct Scheduler {
    store: Store,
    runtime: Runtime,
    runs: Arc<RunWorker>,
    wake: Notify,
}

impl Scheduler {
    /// Starts the scheduler's task.
    pub fn start(store: Store, runtime: Runtime, runs: Arc<RunWorker>) -> Arc<Self> {
        let scheduler = Arc::new(Self {
            store,
            runtime,
            runs,
            wake: Notify::new(),
        });
        let looping = Arc::clone(&scheduler);
        tokio::spawn(async move { looping.run_loop().await });
        scheduler
    }

    /// Tells the scheduler that schedules changed (it looks again).
    pub fn changed(&self) {
        self.wake.notify_one();
    }

    async fn run_loop(self: Arc<Self>) {
        loop {
            if self.runtime.is_closing() {
                return;
            }
            if let Err(error) = self.fire_due().await {
                tracing::error!(%error, "firing due schedules failed");
            }
            if let Err(error) = self.send_outbox().await {
                tracing::error!(%error, "sending scheduled messages failed");
            }
            let earliest = self.store.run(|s| s.earliest_schedule()).await;
            let sleep = match earliest {
                Ok(Some(at)) => (at - Utc::now()).to_std().unwrap_or(Duration::ZERO),
                _ => MAX_SLEEP,
            }
            .min(MAX_SLEEP);
            if sleep > Duration::ZERO {
                let _ = tokio::time::timeout(sleep, self.wake.notified()).await;
            }
        }
    }

    /// Fires every schedule due now, a batch per flush.
    async fn fire_due(&self) -> Result<(), StoreError> {
        loop {
            let now = Utc::now();
            let started = Instant::now();
            let (fired, due) = self
                .store
                .write(move |s| {
                    let due = s.due_schedules(now, BATCH)?;
                    let mut fired = Vec::new();
                    for (org, agent, id) in &due {
                        if let Some(Fired::Stored { runs, .. }) =
                            fire_one(s, *org, *agent, *id, now)?
                        {
                            fired.extend(runs);
                        }
                    }
                    Ok((fired, due.len()))
                })
                .await?;
            if due > 0 {
                tracing::debug!(
                    schedules = due,
                    runs = fired.len(),
                    ms = started.elapsed().as_millis() as u64,
                    "schedules fired"
                );
            }
            for run in &fired {
                self.runs.changed(run);
            }
            if due < BATCH {
                return Ok(());
            }
        }
    }

    /// Hands the outbox's message sends to their threads' actors; each
    /// leaves the outbox once admitted (or refused for good). A repeat
    /// after a crash is the same keyed send, so it is admitted once.
    async fn send_outbox(&self) -> Result<(), StoreError> {
        let sends = self.store.run(|s| s.schedule_outbox(OUTBOX_PAGE)).await?;
        for send in sends {
            let outcome = self.send(&send).await?;
            if let Some(outcome) = outcome {
                let (org, agent, id, slot) =
                    (send.org_id, send.agent_id, send.schedule_id, send.slot);
                let disable = outcome == "thread_deleted";
                let removed = send.clone();
                self.store
                    .write(move |s| {
                        if outcome != "sent" {
                            s.change_scheduled_task(org, agent, id, |task| {
                                task.record([RecentFiring::skipped(slot, &outcome, None)]);
                                if disable {
                                    task.enabled = false;
                                    task.next_fire_at = None;
                                }
                            })?;
                        }
                        s.remove_outbox_send(&removed)
                    })
                    .await?;
            }
        }
        Ok(())
    }

    /// One send: `Some("sent")`, `Some(reason)` of a recorded skip, or
    /// `None` to try again later.
    async fn send(&self, send: &OutboxSend) -> Result<Option<String>, StoreError> {
        let (org, agent_id, thread_id) = (send.org_id, send.agent_id, send.thread_id);
        let (agent, thread) = self
            .store
            .run(move |s| Ok((s.agent(org, agent_id)?, s.thread(org, thread_id)?)))
            .await?;
        let usable = thread.is_some_and(|t| t.agent_id == agent_id && t.origin.is_none());
        if agent.is_none() || !usable {
            return Ok(Some("thread_deleted".into()));
        }
        let sender = format!("schedule:{}", send.schedule_id);
        let key = format!("sched:{}:{}", send.schedule_id, slot_name(send.slot));
        let mut metadata = Metadata::new();
        metadata.insert("scheduled_task_id".into(), send.schedule_id.to_string());
        metadata.insert("scheduled_for".into(), slot_name(send.slot));
        let idempotency = crate::api::idempotency::send_key(
            thread_id,
            (org, &sender),
            &key,
            &send.content,
            Some(&sender),
        );
        let if_busy = match send.overlap {
            Overlap::Skip => IfBusy::Reject,
            Overlap::Queue | Overlap::Allow => IfBusy::Queue,
        };
        let request = TurnRequest {
            content: send.content.clone(),
            sender_name: None,
            sender_id: Some(sender.clone()),
            model_override: None,
            system_prompt_overlay: None,
            metadata,
            tools: Vec::new(),
            tool_profile: None,
            tool_results: Vec::new(),
            user_id: sender,
            end_user: false,
            accepted: Some(Instant::now()),
            idempotency: Some(idempotency),
            options: Arc::default(),
            if_busy: Some(if_busy.as_str()),
            otel_trace_id: None,
            public: None,
            continuation: false,
            run: None,
        };
        let admission = match self
            .runtime
            .post(org, thread_id, request, if_busy, agent)
            .await
        {
            Ok(admission) => admission,
            Err(error) => {
                tracing::warn!(%error, "a scheduled message was not admitted; retried later");
                return Ok(None);
            }
        };
        Ok(match admission {
            Admission::Accepted { .. } | Admission::Duplicate { .. } => Some("sent".into()),
            Admission::Refused(Refusal::Busy) => Some("overlap".into()),
            Admission::Refused(Refusal::QueueFull | Refusal::OrgQueueFull) => {
                Some("queue_full".into())
            }
            Admission::Refused(Refusal::Rule(rule)) => Some(format!("refused: {rule}")),
            Admission::Refused(_) => None,
        })
    }
}

/// Plans and stores one due schedule's firing at `now` (`None`: it was
/// gone or not due any more).
pub(crate) fn fire_one(
    s: &SledStore,
    org: OrgId,
    agent: confer_actors::AgentId,
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
