//! The port of plans (`plans.md`), on either store: a plan is created only
//! on a live thread and within the thread's limit, changed by one
//! compare-and-swap, deleted at the version `If-Match` names.

use confer_actors::{OrgId, PlanId, StoreFuture, ThreadId};

use super::SledRecords;
use crate::plans::{Plan, PlanError};
use crate::store::plans::{PlanCreate, PlanDelete};
use crate::store::update::Updated;

/// A change to a stored plan (see [`PlanRecords::update_plan`]); it may
/// be called more than once when a concurrent change wins first.
pub type PlanSwap = Box<dyn FnMut(Plan) -> Result<Plan, PlanError> + Send>;

/// Plans and their todos.
pub trait PlanRecords: Send + Sync + 'static {
    /// Stores a new plan of a live thread, unless the thread is full.
    fn create_plan(&self, plan: Plan) -> StoreFuture<Result<(), PlanCreate>>;

    /// One plan of the org.
    fn plan(&self, org: OrgId, id: PlanId) -> StoreFuture<Option<Plan>>;

    /// A thread's plans, newest first.
    fn thread_plans(&self, org: OrgId, thread: ThreadId) -> StoreFuture<Vec<Plan>>;

    /// Changes a plan atomically; `Gone` when it was deleted, `Refused`
    /// (nothing stored) when `change` says no.
    fn update_plan(
        &self,
        org: OrgId,
        id: PlanId,
        change: PlanSwap,
    ) -> StoreFuture<Updated<Plan, PlanError>>;

    /// Deletes a plan if it is at version `expect` (any when `None`).
    fn delete_plan(&self, org: OrgId, id: PlanId, expect: Option<u64>) -> StoreFuture<PlanDelete>;
}

impl PlanRecords for SledRecords {
    fn create_plan(&self, plan: Plan) -> StoreFuture<Result<(), PlanCreate>> {
        self.write(move |s| s.create_plan(&plan))
    }

    fn plan(&self, org: OrgId, id: PlanId) -> StoreFuture<Option<Plan>> {
        self.read(move |s| s.plan(org, id))
    }

    fn thread_plans(&self, org: OrgId, thread: ThreadId) -> StoreFuture<Vec<Plan>> {
        self.read(move |s| s.thread_plans(org, thread))
    }

    fn update_plan(
        &self,
        org: OrgId,
        id: PlanId,
        change: PlanSwap,
    ) -> StoreFuture<Updated<Plan, PlanError>> {
        self.write(move |s| s.update_plan(org, id, change))
    }

    fn delete_plan(&self, org: OrgId, id: PlanId, expect: Option<u64>) -> StoreFuture<PlanDelete> {
        self.write(move |s| s.delete_plan(org, id, expect))
    }
}
