//! A due schedule's firing stored in one transaction (see the parent's
//! layout): the slots' runs by their derived ids, the outbox sends, and
//! the task's new `next_fire_at` and `recent`.

use chrono::{DateTime, Utc};
use sled::Transactional;

use super::{outbox_key, save_task, task_key};
use crate::runners::RunRecord;
use crate::scheduler::{OutboxSend, RecentFiring, ScheduledTask};
use crate::store::codec::{decode, encode};
use crate::store::runners::{NewRunTx, RunCreated};
use crate::store::{SledStore, abort, tx_error};
use confer_actors::StoreError;

/// A due schedule's firing, planned from the task as read (`version`).
pub struct Firing {
    /// The task as it will be stored (its `version` is the one read + 1).
    pub task: ScheduledTask,
    /// The slots' runs, oldest first; one that exists is left alone.
    pub runs: Vec<(DateTime<Utc>, RunRecord)>,
    /// The runner's `max_queued_runs`.
    pub max_queued: u32,
    /// Message sends for the outbox.
    pub sends: Vec<OutboxSend>,
}

/// What a firing stored.
pub enum Fired {
    /// The task changed since it was read: nothing was written.
    Changed,
    /// The runs made (those that existed are not repeated).
    Stored {
        task: Box<ScheduledTask>,
        runs: Vec<RunRecord>,
    },
}

impl SledStore {
    /// Stores `firing` in one transaction if the task is still at the
    /// version it was planned from: the slots' runs (by their derived
    /// ids, so a slot's run is never made twice), the outbox sends, the
    /// task's new `next_fire_at` and `recent`. A full backlog or a
    /// deleted runner turns a slot's run into a recorded skip.
    pub fn fire_schedule(&self, firing: &Firing) -> Result<Fired, StoreError> {
        let _writing = self.gate.writing();
        let (s, r) = (&self.schedules, &self.runners);
        let task = &firing.task;
        (
            &s.tasks,
            &s.due,
            &s.outbox,
            &r.runners,
            &r.runs,
            &r.by_runner,
            &r.queue,
            &r.open,
            &r.backlog,
            &self.org_clocks,
        )
            .transaction(
                |(tasks, due, outbox, runners, runs, by_runner, queue, open, backlog, clocks)| {
                    let key = task_key(task.org_id, task.agent_id, task.id);
                    let Some(old) = tasks
                        .get(&key)?
                        .map(|b| decode::<ScheduledTask>(&b).map_err(abort))
                        .transpose()?
                    else {
                        return Ok(Fired::Changed);
                    };
                    if old.version + 1 != task.version {
                        return Ok(Fired::Changed);
                    }
                    let new_runs = NewRunTx {
                        runners,
                        runs,
                        by_runner,
                        queue,
                        open,
                        backlog,
                        clocks,
                    };
                    let mut stored = task.clone();
                    let mut made = Vec::new();
                    let mut entries = Vec::new();
                    for (slot, run) in &firing.runs {
                        if new_runs.exists(run.org_id, run.id)? {
                            entries.push(RecentFiring::fired(*slot, Some(run.id)));
                            continue;
                        }
                        match new_runs.create(run, firing.max_queued)? {
                            RunCreated::Stored(run) => {
                                entries.push(RecentFiring::fired(*slot, Some(run.id)));
                                stored.last_run = Some(run.id);
                                made.push(*run);
                            }
                            RunCreated::QueueFull => {
                                entries.push(RecentFiring::skipped(*slot, "queue_full", None));
                            }
                            RunCreated::RunnerGone => {
                                entries.push(RecentFiring::skipped(*slot, "runner_deleted", None));
                            }
                        }
                    }
                    for send in &firing.sends {
                        outbox.insert(
                            outbox_key(send.schedule_id, send.slot),
                            encode(send).map_err(abort)?,
                        )?;
                        entries.push(RecentFiring::fired(send.slot, None));
                    }
                    entries.sort_by_key(|e| e.slot);
                    stored.record(entries);
                    save_task(tasks, due, Some(&old), &stored)?;
                    Ok(Fired::Stored {
                        task: Box::new(stored),
                        runs: made,
                    })
                },
            )
            .map_err(tx_error)
    }
}
