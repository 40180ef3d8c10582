//! Scheduled tasks and their firings (`runners.md` Scheduling).
//!
//! | tree              | key                               | value          |
//! |-------------------|-----------------------------------|----------------|
//! | `schedules`       | org ++ agent ++ schedule          | `ScheduledTask` |
//! | `schedules_due`   | next fire µs BE ++ schedule       | org ++ agent   |
//! | `schedule_outbox` | schedule ++ slot µs BE            | `OutboxSend`   |
//!
//! A task is in `schedules_due` exactly when it has a `next_fire_at`;
//! [`SledStore::fire_schedule`] advances it in the transaction that makes
//! the slots' runs (or outbox sends), so the two never disagree.

use std::sync::Mutex;

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, OrgId, RunId, RunnerId, ScheduleId, StoreError};
use sled::Transactional;
use sled::transaction::{ConflictableTransactionError, TransactionalTree};

use super::codec::{decode, encode};
use super::keys;
use super::{SledStore, abort, engine, tx_error};
use crate::scheduler::{OutboxSend, RecentFiring, ScheduledTask, TaskAction};

/// The schedule trees.
pub struct ScheduleTrees {
    tasks: sled::Tree,
    due: sled::Tree,
    outbox: sled::Tree,
    /// One replacement of an agent's tasks at a time (the org's count is
    /// read outside the transaction).
    replacing: Mutex<()>,
}

impl ScheduleTrees {
    /// The tasks (for `confer migrate`).
    pub(crate) fn tasks(&self) -> &sled::Tree {
        &self.tasks
    }

    /// The outbox (for `confer migrate`).
    pub(crate) fn outbox(&self) -> &sled::Tree {
        &self.outbox
    }

    /// Opens (or creates) the trees in `db`.
    pub fn open(db: &sled::Db) -> Result<Self, StoreError> {
        let tree = |name: &str| db.open_tree(name).map_err(engine);
        Ok(Self {
            tasks: tree("schedules")?,
            due: tree("schedules_due")?,
            outbox: tree("schedule_outbox")?,
            replacing: Mutex::new(()),
        })
    }
}

pub(super) fn task_key(org: OrgId, agent: AgentId, id: ScheduleId) -> Vec<u8> {
    [org.as_bytes().as_slice(), agent.as_bytes(), id.as_bytes()].concat()
}

pub(super) fn due_key(at: DateTime<Utc>, id: ScheduleId) -> Vec<u8> {
    [&keys::micros(at).to_be_bytes()[..], id.as_bytes()].concat()
}

fn outbox_key(id: ScheduleId, slot: DateTime<Utc>) -> Vec<u8> {
    [id.as_bytes().as_slice(), &keys::micros(slot).to_be_bytes()].concat()
}

type Tx = ConflictableTransactionError<StoreError>;

/// Writes `new` over `old` in `tasks`, moving its `schedules_due` entry.
pub(super) fn save_task(
    tasks: &TransactionalTree,
    due: &TransactionalTree,
    old: Option<&ScheduledTask>,
    new: &ScheduledTask,
) -> Result<(), Tx> {
    if let Some(at) = old.and_then(|o| o.next_fire_at) {
        due.remove(due_key(at, new.id))?;
    }
    if let Some(at) = new.next_fire_at {
        due.insert(
            due_key(at, new.id),
            keys::pair(new.org_id.as_bytes(), new.agent_id.as_bytes()).as_slice(),
        )?;
    }
    tasks.insert(
        task_key(new.org_id, new.agent_id, new.id),
        encode(new).map_err(abort)?,
    )?;
    Ok(())
}

/// Why a replacement of an agent's tasks was refused.
#[derive(Debug, PartialEq)]
pub enum ReplaceRefused {
    /// The org would hold more than its schedules allow.
    OrgFull { max: usize },
}

impl SledStore {
    /// An agent's own tasks (not its runners' schedule triggers), in
    /// creation (UUIDv7) order.
    pub fn scheduled_tasks(
        &self,
        org: OrgId,
        agent: AgentId,
    ) -> Result<Vec<ScheduledTask>, StoreError> {
        self.tasks_of_agent(org, agent, runner_triggers::agents_own)
    }

    /// The agent's tasks `keep` accepts (its own, or a runner's
    /// triggers), in creation order.
    fn tasks_of_agent(
        &self,
        org: OrgId,
        agent: AgentId,
        keep: impl Fn(&ScheduledTask) -> bool,
    ) -> Result<Vec<ScheduledTask>, StoreError> {
        let prefix = keys::pair(org.as_bytes(), agent.as_bytes());
        let mut out = Vec::new();
        for value in self.schedules.tasks.scan_prefix(prefix).values() {
            let task: ScheduledTask = decode(&value.map_err(engine)?)?;
            if keep(&task) {
                out.push(task);
            }
        }
        Ok(out)
    }

    /// One task.
    pub fn scheduled_task(
        &self,
        org: OrgId,
        agent: AgentId,
        id: ScheduleId,
    ) -> Result<Option<ScheduledTask>, StoreError> {
        Self::get(&self.schedules.tasks, &task_key(org, agent, id))
    }

    /// Replaces an agent's tasks with what `build` makes of the stored
    /// ones, unless the org would hold more than `max_per_org`. `build`
    /// runs again when a firing changed a task meanwhile.
    pub fn replace_scheduled_tasks<E>(
        &self,
        org: OrgId,
        agent: AgentId,
        max_per_org: usize,
        build: impl Fn(&[ScheduledTask]) -> Result<Vec<ScheduledTask>, E>,
    ) -> Result<Result<Vec<ScheduledTask>, Result<E, ReplaceRefused>>, StoreError> {
        let _writing = self.gate.writing();
        // A poisoned lock only means a panic elsewhere; the trees are intact.
        let _one = self
            .schedules
            .replacing
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let t = &self.schedules;
        loop {
            let stored = self.scheduled_tasks(org, agent)?;
            let new = match build(&stored) {
                Ok(new) => new,
                Err(e) => return Ok(Err(Ok(e))),
            };
            let in_org = t.tasks.scan_prefix(org.as_bytes()).keys().count();
            if in_org - stored.len() + new.len() > max_per_org {
                return Ok(Err(Err(ReplaceRefused::OrgFull { max: max_per_org })));
            }
            let written = (&t.tasks, &t.due).transaction(|(tasks, due)| {
                for old in &stored {
                    let key = task_key(org, agent, old.id);
                    let now: Option<ScheduledTask> = tasks
                        .get(&key)?
                        .map(|b| decode(&b).map_err(abort))
                        .transpose()?;
                    if now.as_ref().map(|n| n.version) != Some(old.version) {
                        return Ok(false);
                    }
                    if !new.iter().any(|n| n.id == old.id) {
                        if let Some(at) = old.next_fire_at {
                            due.remove(due_key(at, old.id))?;
                        }
                        tasks.remove(key)?;
                    }
                }
                for task in &new {
                    let old = stored.iter().find(|o| o.id == task.id);
                    if old.is_none() && tasks.get(task_key(org, agent, task.id))?.is_some() {
                        return Ok(false);
                    }
                    save_task(tasks, due, old, task)?;
                }
                Ok(true)
            });
            if written.map_err(tx_error)? {
                return Ok(Ok(new));
            }
        }
    }

    /// Deletes an agent's tasks (the agent was deleted).
    pub fn delete_scheduled_tasks(&self, org: OrgId, agent: AgentId) -> Result<(), StoreError> {
        let result = self.replace_scheduled_tasks(org, agent, usize::MAX, |_| {
            Ok::<_, std::convert::Infallible>(Vec::new())
        })?;
        debug_assert!(result.is_ok());
        Ok(())
    }

    /// Disables the org's tasks that start `runner` (it was deleted),
    /// each with a recorded `runner_deleted` skip; deletes its schedule
    /// triggers.
    pub fn stop_tasks_of_runner(&self, org: OrgId, runner: RunnerId) -> Result<(), StoreError> {
        let starting: Vec<ScheduledTask> = self
            .schedules
            .tasks
            .scan_prefix(org.as_bytes())
            .values()
            .filter_map(Result::ok)
            .filter_map(|v| decode::<ScheduledTask>(&v).ok())
            .filter(|t| {
                (t.enabled || t.runner_trigger == Some(runner))
                    && matches!(&t.action, TaskAction::Run { runner_id, .. } if *runner_id == runner)
            })
            .collect();
        for task in starting {
            if task.runner_trigger.is_some() {
                self.delete_runner_schedule(org, task.agent_id, runner, task.id)?;
                continue;
            }
            self.change_scheduled_task(org, task.agent_id, task.id, |t| {
                t.record([RecentFiring::skipped(Utc::now(), "runner_deleted", None)]);
                t.enabled = false;
                t.next_fire_at = None;
            })?;
        }
        Ok(())
    }

    /// The earliest `next_fire_at` of any schedule.
    pub fn earliest_schedule(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        Ok(self
            .schedules
            .due
            .first()
            .map_err(engine)?
            .and_then(|(key, _)| key.get(..8).map(keys::read_u64))
            .map(keys::from_micros))
    }

    /// Schedules due at `now`, earliest first, at most `limit`. An entry
    /// that no longer matches its task (none should: [`save_task`] moves
    /// them together) is removed, so the scheduler never spins on it.
    pub fn due_schedules(
        &self,
        now: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<(OrgId, AgentId, ScheduleId)>, StoreError> {
        let end = (keys::micros(now) + 1).to_be_bytes();
        let mut out = Vec::new();
        for entry in self.schedules.due.range(..end.as_slice()).take(limit) {
            let (key, value) = entry.map_err(engine)?;
            let (Some(at), Some(id), Some(org), Some(agent)) = (
                key.get(..8).map(keys::read_u64),
                key.get(8..24).and_then(|b| <[u8; 16]>::try_from(b).ok()),
                value.get(..16).and_then(|b| <[u8; 16]>::try_from(b).ok()),
                value.get(16..32).and_then(|b| <[u8; 16]>::try_from(b).ok()),
            ) else {
                continue;
            };
            let (org, agent, id) = (
                OrgId::from_bytes(org),
                AgentId::from_bytes(agent),
                ScheduleId::from_bytes(id),
            );
            let task = self.scheduled_task(org, agent, id)?;
            if task.and_then(|t| t.next_fire_at).map(keys::micros) == Some(at) {
                out.push((org, agent, id));
            } else {
                tracing::warn!(schedule = %id, "a stale due entry was removed");
                let _ = self
                    .schedules
                    .due
                    .compare_and_swap(&key, Some(&value), None::<&[u8]>)
                    .map_err(engine)?;
            }
        }
        Ok(out)
    }

    /// Changes a task by compare-and-swap (a later outcome recorded).
    pub fn change_scheduled_task(
        &self,
        org: OrgId,
        agent: AgentId,
        id: ScheduleId,
        change: impl Fn(&mut ScheduledTask),
    ) -> Result<Option<ScheduledTask>, StoreError> {
        let _writing = self.gate.writing();
        let t = &self.schedules;
        (&t.tasks, &t.due)
            .transaction(|(tasks, due)| {
                let Some(old) = tasks
                    .get(task_key(org, agent, id))?
                    .map(|b| decode::<ScheduledTask>(&b).map_err(abort))
                    .transpose()?
                else {
                    return Ok(None);
                };
                let mut new = old.clone();
                change(&mut new);
                new.version = old.version + 1;
                save_task(tasks, due, Some(&old), &new)?;
                Ok(Some(new))
            })
            .map_err(tx_error)
    }

    /// Message sends not yet admitted, oldest slot first per schedule.
    pub fn schedule_outbox(&self, limit: usize) -> Result<Vec<OutboxSend>, StoreError> {
        self.schedules
            .outbox
            .iter()
            .values()
            .take(limit)
            .map(|v| decode(&v.map_err(engine)?))
            .collect()
    }

    /// Removes an admitted (or refused) send from the outbox.
    pub fn remove_outbox_send(&self, send: &OutboxSend) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        self.schedules
            .outbox
            .remove(outbox_key(send.schedule_id, send.slot))
            .map_err(engine)?;
        Ok(())
    }

    /// Whether a run exists (the overlap rule's earlier firing).
    pub fn run_status(
        &self,
        org: OrgId,
        id: RunId,
    ) -> Result<Option<crate::runners::RunStatus>, StoreError> {
        Ok(self.run(org, id)?.map(|r| r.status))
    }
}

#[cfg(test)]
mod tests;

mod fire;
pub mod runner_triggers;
pub use fire::{Fired, Firing};
