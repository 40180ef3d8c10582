//! What a turn asks of its node when several nodes share the store
//! (`scale.md` §3–5): the lease its writes are made under, and the org's
//! turn slots and queue across the cluster.

use crate::ids::{OrgId, ThreadId};
use crate::ports::{Fence, StoreFuture};

/// What [`Leases::take_org_slot`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrgTurns {
    /// The first turn asked for took a slot.
    pub taken: bool,
    /// The places in the org's queue (from 1) of the turns still waiting,
    /// in the order asked (the first left out when it took a slot).
    pub positions: Vec<usize>,
}

/// The leases of a cluster's node: what a thread actor's writes are made
/// under, taken when the actor starts.
pub trait Leases: Send + Sync + 'static {
    /// The lease this node holds now on `thread`'s shard; one that fails
    /// every write (`StoreError::Fenced`) when it holds none.
    fn fence(&self, thread: ThreadId) -> Fence;

    /// Whether the node may start a turn now: its lease cannot lapse
    /// within the next second (`scale.md` §3.2).
    fn admits_turns(&self) -> bool {
        true
    }

    /// Queues `waiting` (this node's waiting turns of `org`, in arrival
    /// order) in the cluster's queue of the org's turns and forgets this
    /// node's turns no longer in it; then takes one of `limit` slots for
    /// the first of `waiting` if it is first in the cluster's queue
    /// (`scale.md` §5).
    fn take_org_slot(
        &self,
        org: OrgId,
        waiting: Vec<(ThreadId, u64)>,
        limit: usize,
    ) -> StoreFuture<OrgTurns> {
        let _ = (org, limit);
        let positions = (1..waiting.len()).collect();
        Box::pin(async move {
            Ok(OrgTurns {
                taken: true,
                positions,
            })
        })
    }

    /// Takes `thread`'s `turn` out of the cluster's queue of `org`'s turns
    /// (it was dropped before a slot came).
    fn leave_org_queue(&self, org: OrgId, thread: ThreadId, turn: u64) -> StoreFuture<()> {
        let _ = (org, thread, turn);
        Box::pin(async { Ok(()) })
    }

    /// Gives `thread`'s turn slot in `org` back.
    fn give_org_slot(&self, org: OrgId, thread: ThreadId) -> StoreFuture<()> {
        let _ = (org, thread);
        Box::pin(async { Ok(()) })
    }
}
