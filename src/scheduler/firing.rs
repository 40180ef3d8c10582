//! The scheduler's task (`runners.md` Scheduling §2–5): it sleeps until
//! the earliest `next_fire_at`, a change or 60 s; fires what is due in
//! batches, each batch's transactions made durable by one flush before
//! any of their work starts; then hands the runs to the run worker and
//! sends the outbox's messages to their threads' actors (a turn never
//! waits for the scheduler: the frames go to the thread's log).

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use confer_actors::{Admission, IfBusy, Metadata, Refusal, Runtime, StoreError, TurnRequest};
use tokio::sync::Notify;

use super::due::fire_one;
use super::{OutboxSend, Overlap, RecentFiring, slot_name};
use crate::runners::worker::RunWorker;
use crate::store::Store;
use crate::store::schedules::Fired;

/// Schedules fired per batch (one flush each).
const BATCH: usize = 256;
/// Outbox sends handed to actors per pass.
const OUTBOX_PAGE: usize = 256;
/// The longest sleep between two looks at the due index.
const MAX_SLEEP: Duration = Duration::from_secs(60);
/// The longest sleep while the outbox holds sends to try again (a busy
/// org's turn cap, a closing thread).
const OUTBOX_RETRY: Duration = Duration::from_secs(2);

/// The scheduler: one per server.
pub struct Scheduler {
    pub(super) store: Store,
    pub(super) runtime: Runtime,
    runs: Arc<RunWorker>,
    pub(super) wake: Notify,
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
        if scheduler.store.is_postgres() {
            return scheduler; // the node's shards' (`Scheduler::follow`)
        }
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
            let waiting = match self.send_outbox().await {
                Ok(waiting) => waiting,
                Err(error) => {
                    tracing::error!(%error, "sending scheduled messages failed");
                    true
                }
            };
            let earliest = self.store.run(|s| s.earliest_schedule()).await;
            let longest = if waiting { OUTBOX_RETRY } else { MAX_SLEEP };
            let sleep = match earliest {
                Ok(Some(at)) => (at - Utc::now()).to_std().unwrap_or(Duration::ZERO),
                _ => longest,
            }
            .min(longest);
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
    /// Whether sends are left to try again.
    async fn send_outbox(&self) -> Result<bool, StoreError> {
        let sends = self.store.run(|s| s.schedule_outbox(OUTBOX_PAGE)).await?;
        let full = sends.len() == OUTBOX_PAGE;
        Ok(self.deliver(sends).await? || full)
    }

    /// Sends each of `sends` (see [`Scheduler::send_outbox`]); whether
    /// some are left to try again.
    pub(super) async fn deliver(&self, sends: Vec<OutboxSend>) -> Result<bool, StoreError> {
        let mut waiting = false;
        for send in sends {
            let Some(outcome) = self.send(&send).await? else {
                waiting = true;
                continue;
            };
            let (org, agent, id, slot) = (send.org_id, send.agent_id, send.schedule_id, send.slot);
            if outcome != "sent" {
                let disable = outcome == "thread_deleted";
                let change = move |task: &mut super::ScheduledTask| {
                    task.record([RecentFiring::skipped(slot, &outcome, None)]);
                    if disable {
                        super::due::disable(task);
                    }
                };
                self.store
                    .schedules()
                    .change_scheduled_task(org, agent, id, Box::new(change))
                    .await?;
            }
            self.store.schedules().remove_outbox_send(send).await?;
        }
        Ok(waiting)
    }

    /// One send: `Some("sent")`, `Some(reason)` of a recorded skip, or
    /// `None` to try again later.
    async fn send(&self, send: &OutboxSend) -> Result<Option<String>, StoreError> {
        let (org, agent_id, thread_id) = (send.org_id, send.agent_id, send.thread_id);
        let agent = self.store.agents().agent(org, agent_id).await?;
        let thread = self.store.threads().thread(org, thread_id).await?;
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
            stream_tool_output: false,
            host: None,
            max_tool_steps: None,
            code_session: None,
            delegation: None,
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
