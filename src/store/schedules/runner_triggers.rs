//! Runners' schedule triggers in the schedule trees: tasks of the
//! runner's agent marked `runner_trigger` (see
//! `crate::runners::schedule_trigger`). They count against the org's
//! schedules with the agents' tasks, and against the runner's 20
//! triggers with its webhooks.

use confer_actors::{AgentId, OrgId, RunnerId, ScheduleId, StoreError};
use sled::Transactional;

use super::{due_key, save_task, task_key};
use crate::runners::triggers::MAX_TRIGGERS_PER_RUNNER;
use crate::scheduler::ScheduledTask;
use crate::store::codec::decode;
use crate::store::{SledStore, abort, engine, tx_error};

/// Why a new schedule trigger was refused.
#[derive(Debug, PartialEq)]
pub enum ScheduleTriggerRefused {
    /// The org holds `CONFER_MAX_SCHEDULES_PER_ORG` schedules.
    OrgFull { max: usize },
    /// The runner has its 20 triggers.
    RunnerFull,
}

impl SledStore {
    /// The schedule triggers of `runner` (a runner of `agent`), oldest
    /// first.
    pub fn runner_schedules(
        &self,
        org: OrgId,
        agent: AgentId,
        runner: RunnerId,
    ) -> Result<Vec<ScheduledTask>, StoreError> {
        self.tasks_of_agent(org, agent, |t| t.runner_trigger == Some(runner))
    }

    /// How many schedule triggers `runner` has.
    pub fn runner_schedule_count(&self, org: OrgId, runner: RunnerId) -> Result<usize, StoreError> {
        let mut count = 0;
        for value in self.schedules.tasks.scan_prefix(org.as_bytes()).values() {
            let task: ScheduledTask = decode(&value.map_err(engine)?)?;
            count += usize::from(task.runner_trigger == Some(runner));
        }
        Ok(count)
    }

    /// Stores a new schedule trigger unless the org or the runner is full.
    pub fn put_runner_schedule(
        &self,
        task: &ScheduledTask,
        max_per_org: usize,
    ) -> Result<Result<(), ScheduleTriggerRefused>, StoreError> {
        let _writing = self.gate.writing();
        let Some(runner) = task.runner_trigger else {
            return Err(StoreError::Engine("not a runner's schedule".into()));
        };
        // One replacement or trigger creation at a time: the counts are
        // read outside the transaction. A poisoned lock only means a
        // panic elsewhere; the trees are intact.
        let _one = self
            .schedules
            .replacing
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let (org, agent) = (task.org_id, task.agent_id);
        let in_org = self.schedules.tasks.scan_prefix(org.as_bytes()).count();
        if in_org >= max_per_org {
            return Ok(Err(ScheduleTriggerRefused::OrgFull { max: max_per_org }));
        }
        let held = self.runner_schedules(org, agent, runner)?.len()
            + self.triggers(org, runner)?.len()
            + self.buttons_of(runner)?;
        // (The webhook side counts these the same way in `put_trigger`.)
        if held >= MAX_TRIGGERS_PER_RUNNER {
            return Ok(Err(ScheduleTriggerRefused::RunnerFull));
        }
        let t = &self.schedules;
        (&t.tasks, &t.due)
            .transaction(|(tasks, due)| save_task(tasks, due, None, task))
            .map_err(tx_error)?;
        Ok(Ok(()))
    }

    /// Deletes a schedule trigger of `runner`; whether it was there.
    pub fn delete_runner_schedule(
        &self,
        org: OrgId,
        agent: AgentId,
        runner: RunnerId,
        id: ScheduleId,
    ) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let t = &self.schedules;
        (&t.tasks, &t.due)
            .transaction(|(tasks, due)| {
                let key = task_key(org, agent, id);
                let Some(task) = tasks
                    .get(&key)?
                    .map(|b| decode::<ScheduledTask>(&b).map_err(abort))
                    .transpose()?
                    .filter(|t| t.runner_trigger == Some(runner))
                else {
                    return Ok(false);
                };
                if let Some(at) = task.next_fire_at {
                    due.remove(due_key(at, id))?;
                }
                tasks.remove(key)?;
                Ok(true)
            })
            .map_err(tx_error)
    }
}

/// Whether `task` is an agent's own (not a runner's trigger).
pub(super) fn agents_own(task: &ScheduledTask) -> bool {
    task.runner_trigger.is_none()
}
