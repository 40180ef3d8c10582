//! What a thread actor does when its node loses its lease (`scale.md`
//! §3.2): the node's registration ran out, so another node may own the
//! thread now. The actor drops its queued sends and stops its running
//! turn, each stream ending `error NODE_LOST_LEASE`, `done {ok:false}`,
//! and lets its watchers go; the registry has already forgotten it, so the
//! thread's next request starts a fresh actor under the node's new lease.

use actix::prelude::*;

use super::ThreadActor;
use crate::turn::CancelReason;

/// The node lost the lease the actor's writes were fenced with.
#[derive(Message)]
#[rtype(result = "()")]
pub struct LeaseLost;

impl Handler<LeaseLost> for ThreadActor {
    type Result = ();

    fn handle(&mut self, _: LeaseLost, _: &mut Context<Self>) {
        let reason = CancelReason::LostLease;
        if let Some((code, detail)) = reason.error() {
            self.drop_queue(code, detail);
        }
        self.cancel_running(reason);
        self.log.close();
    }
}
