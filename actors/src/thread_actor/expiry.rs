//! When finished turns' frames go: one timer per actor.
//!
//! Each finished turn used to add a timer of its own (`keep_finished`, five
//! minutes), and actix polls every pending timer of an actor each time the
//! actor runs: a thread answering turns back to back held hundreds, and
//! polling them was 3% of a burst's CPU (docs/performance-history.md). One
//! timer, re-armed when a turn finishes, is enough: a newer turn's start
//! already trims every finished turn but the last (`FrameLog::begin`), so
//! only the last one's time matters.

use actix::{AsyncContext, Context};

use super::ThreadActor;

impl ThreadActor {
    /// Re-arms the expiry timer for the turn that just finished.
    pub(super) fn arm_expiry(&mut self, ctx: &mut Context<Self>) {
        if let Some(earlier) = self.expiry.take() {
            ctx.cancel_future(earlier);
        }
        let keep = self.limits.retention.keep_finished;
        self.expiry = Some(ctx.run_later(keep, |actor, _| {
            actor.expiry = None;
            actor.log.expire();
            actor.count_bytes();
        }));
    }
}
