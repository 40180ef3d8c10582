//! A public turn admitted across a cluster's nodes (`scale.md` §5: a
//! publication's `maxConcurrentTurns` and day budget are exact there).
//! A chat's threads are owned by several nodes, so each node's own
//! counters (`limits`, `budget`) see only its share: on PostgreSQL the
//! turn also takes a row of `public_turns`, counted under the
//! publication's lock with the reservations of the turns running on every
//! live node, and gives it back when it ends.

use chrono::{DateTime, Utc};
use confer_actors::PublicationId;

use super::PublicationLimits;
use crate::error::ApiError;
use crate::store::pg::PgStore;
use crate::store::pg::limits::{PublicAdmission, PublicTurnAsk};

/// A turn's row in `public_turns`, deleted when the turn drops it.
pub struct SharedTurn {
    pg: PgStore,
    id: uuid::Uuid,
}

impl Drop for SharedTurn {
    fn drop(&mut self) {
        let (pg, id) = (self.pg.clone(), self.id);
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            // No runtime (the process is ending): the node's rows are
            // cleared once its registration runs out.
            return;
        };
        runtime.spawn(async move {
            if let Err(error) = pg.end_public_turn(id).await {
                tracing::warn!(%error, "ending a public turn's row failed; it goes with the node");
            }
        });
    }
}

/// Admits a turn of `publication` run by `node`, costing at most `cost`
/// with `spent` tokens spent today: 429 `RATE_LIMITED` or
/// `BUDGET_EXHAUSTED` as a single node answers them.
pub async fn admit(
    pg: &PgStore,
    node: uuid::Uuid,
    publication: PublicationId,
    limits: &PublicationLimits,
    (cost, spent): (u64, u64),
    now: DateTime<Utc>,
) -> Result<SharedTurn, ApiError> {
    let id = uuid::Uuid::now_v7();
    let ask = PublicTurnAsk {
        id,
        publication,
        node,
        max_running: limits.max_concurrent_turns,
        cost,
        spent,
        budget: limits.daily_token_budget,
    };
    match pg.admit_public_turn(ask).await? {
        PublicAdmission::Admitted => Ok(SharedTurn { pg: pg.clone(), id }),
        PublicAdmission::Busy => Err(super::limits::too_many_turns(limits.max_concurrent_turns)),
        PublicAdmission::Exhausted => Err(super::budget::exhausted(
            limits.daily_token_budget.unwrap_or_default(),
            now,
        )),
    }
}
