//! The port of agents' scheduled tasks and the scheduler's outbox
//! (`runners.md` Scheduling), on either store. Firing is the store's own
//! work (sled: `crate::scheduler::firing`; PostgreSQL:
//! `crate::scheduler::cluster`); this port holds what the routes and the
//! outbox's sender share.

use confer_actors::{AgentId, OrgId, ScheduleId, StoreFuture};

use super::SledRecords;
use crate::runners::schema::FieldError;
use crate::scheduler::{OutboxSend, ScheduledTask};
use crate::store::schedules::ReplaceRefused;

/// What a replacement makes of the stored tasks (see
/// [`ScheduleRecords::replace_scheduled_tasks`]).
pub type TaskBuild =
    Box<dyn Fn(&[ScheduledTask]) -> Result<Vec<ScheduledTask>, FieldError> + Send + Sync>;

/// A change to a stored task (see [`ScheduleRecords::change_scheduled_task`]).
pub type TaskChange = Box<dyn Fn(&mut ScheduledTask) + Send + Sync>;

/// A replacement's outcome: the tasks stored, a field `build` refused, or
/// the org's cap.
pub type Replaced = Result<Vec<ScheduledTask>, Result<FieldError, ReplaceRefused>>;

/// Scheduled tasks and the outbox of their message sends.
pub trait ScheduleRecords: Send + Sync + 'static {
    /// An agent's own tasks (not its runners' schedule triggers), in
    /// creation (UUIDv7) order.
    fn scheduled_tasks(&self, org: OrgId, agent: AgentId) -> StoreFuture<Vec<ScheduledTask>>;

    /// Replaces an agent's own tasks with what `build` makes of the stored
    /// ones, unless the org would hold more than `max_per_org`; atomic
    /// against a firing and another replacement.
    fn replace_scheduled_tasks(
        &self,
        org: OrgId,
        agent: AgentId,
        max_per_org: usize,
        build: TaskBuild,
    ) -> StoreFuture<Replaced>;

    /// Deletes an agent's tasks (the agent was deleted).
    fn delete_scheduled_tasks(&self, org: OrgId, agent: AgentId) -> StoreFuture<()>;

    /// Changes a task atomically (a later outcome recorded); `None` when
    /// it is gone.
    fn change_scheduled_task(
        &self,
        org: OrgId,
        agent: AgentId,
        id: ScheduleId,
        change: TaskChange,
    ) -> StoreFuture<Option<ScheduledTask>>;

    /// Removes an admitted (or refused) send from the outbox.
    fn remove_outbox_send(&self, send: OutboxSend) -> StoreFuture<()>;
}

impl ScheduleRecords for SledRecords {
    fn scheduled_tasks(&self, org: OrgId, agent: AgentId) -> StoreFuture<Vec<ScheduledTask>> {
        self.read(move |s| s.scheduled_tasks(org, agent))
    }

    fn replace_scheduled_tasks(
        &self,
        org: OrgId,
        agent: AgentId,
        max_per_org: usize,
        build: TaskBuild,
    ) -> StoreFuture<Replaced> {
        self.write(move |s| s.replace_scheduled_tasks(org, agent, max_per_org, build))
    }

    fn delete_scheduled_tasks(&self, org: OrgId, agent: AgentId) -> StoreFuture<()> {
        self.write(move |s| s.delete_scheduled_tasks(org, agent))
    }

    fn change_scheduled_task(
        &self,
        org: OrgId,
        agent: AgentId,
        id: ScheduleId,
        change: TaskChange,
    ) -> StoreFuture<Option<ScheduledTask>> {
        self.write(move |s| s.change_scheduled_task(org, agent, id, change))
    }

    fn remove_outbox_send(&self, send: OutboxSend) -> StoreFuture<()> {
        self.write(move |s| s.remove_outbox_send(&send))
    }
}
