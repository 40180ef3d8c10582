//! The scheduler on PostgreSQL (`scale.md` §5): each round a node fires
//! the due tasks of the shards it owns and sends their outbox's messages
//! on the threads there, which it owns too, so a scheduled send is made on
//! its thread's owner. The firing's row locks and `job_runs` rows keep a
//! slot from firing twice across nodes (`crate::store::pg` `schedules`);
//! a send repeated after a crash or a moved shard is the same keyed send,
//! admitted once.

use std::sync::{Arc, Weak};
use std::time::Duration;

use chrono::Utc;
use confer_actors::StoreError;

use super::firing::Scheduler;
use crate::cluster::node::ROUND;
use crate::cluster::serving::Membership;

/// Tasks fired per transaction.
const BATCH: i64 = 64;
/// Outbox sends read per round.
const OUTBOX_PAGE: i64 = 256;

impl Scheduler {
    /// On PostgreSQL (`membership`: the node joined): fires and sends,
    /// each round (or sooner when told of a change), the schedules of the
    /// shards the node owns, until the node is gone or closing.
    pub fn follow(self: &Arc<Self>, membership: Option<&Arc<Membership>>) {
        let Some(membership) = membership.map(Arc::downgrade) else {
            return;
        };
        let scheduler = Arc::clone(self);
        tokio::spawn(async move { scheduler.cluster_loop(membership).await });
    }

    async fn cluster_loop(self: Arc<Self>, membership: Weak<Membership>) {
        loop {
            if self.runtime.is_closing() {
                return;
            }
            let Some((me, mine)) = Membership::claimant(&membership) else {
                return;
            };
            let mut waiting = false;
            if !mine.is_empty() {
                match self.cluster_round(me, &mine).await {
                    Ok(left) => waiting = left,
                    Err(error) => tracing::warn!(%error, "running the due schedules failed"),
                }
            }
            let sleep = if waiting { Duration::ZERO } else { ROUND };
            let _ = tokio::time::timeout(sleep, self.wake.notified()).await;
        }
    }

    /// One round: fires what is due (a batch per transaction), then sends
    /// one page of the outbox; whether more is left to do at once.
    async fn cluster_round(
        &self,
        me: crate::cluster::NodeId,
        mine: &[crate::cluster::Shard],
    ) -> Result<bool, StoreError> {
        let Some(pg) = self.store.postgres() else {
            return Ok(false);
        };
        let now = Utc::now();
        while pg.fire_due_schedules(me, mine, now, BATCH).await? > 0 {}
        let sends = pg.schedule_outbox(mine, OUTBOX_PAGE).await?;
        let full = sends.len() as i64 == OUTBOX_PAGE;
        let retry = self.deliver(sends).await?;
        // A send to try again (a busy org, a closing actor) waits a round.
        Ok(full && !retry)
    }
}
