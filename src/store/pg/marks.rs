//! What a cluster adds to a thread's writes on PostgreSQL (`scale.md`
//! §3.4–3.5): the fencing check each begins with and the `turns` rows a
//! write marks (an append does both in its first statement, `append`;
//! these are for a turn's end without an append).

use confer_actors::{Fence, StoreError, ThreadId, TurnMark};
use tokio_postgres::Transaction;

use super::records::{PgStore, db, store_error};
use super::statements::Db;
use crate::cluster::leases;
use crate::cluster::{NodeId, Shard};

/// The fencing check a thread write begins with (`scale.md` §3.4): an
/// error, the transaction to be dropped (rolled back), when the lease
/// moved. A write without a fence is not checked.
pub(super) async fn held(
    tx: Db<'_, Transaction<'_>>,
    fence: Option<Fence>,
) -> Result<(), StoreError> {
    let Some(fence) = fence else { return Ok(()) };
    let shard = Shard::new(fence.shard).ok_or(StoreError::Fenced)?;
    match leases::fence(tx, NodeId(fence.node), shard, fence.epoch).await {
        Ok(true) => Ok(()),
        Ok(false) => Err(StoreError::Fenced),
        Err(error) => Err(store_error(error)),
    }
}

/// What the `turns` table learns from a write: the row of a starting turn
/// (it needs the fence: the row names its node and shard), the end of one.
pub(super) async fn record_mark(
    tx: Db<'_, Transaction<'_>>,
    thread: ThreadId,
    fence: Option<Fence>,
    mark: TurnMark,
) -> Result<(), StoreError> {
    let as_i64 = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    match mark {
        TurnMark::Started { turn, trace_id } => {
            let Some(fence) = fence else { return Ok(()) };
            let shard = i16::try_from(fence.shard).map_err(|_| StoreError::Fenced)?;
            tx.execute(
                "INSERT INTO turns (thread_id, turn, shard, node_id, trace_id, status)
                 VALUES ($1, $2, $3, $4, $5, 'running') ON CONFLICT (thread_id, turn) DO NOTHING",
                &[
                    &thread.0,
                    &as_i64(turn),
                    &shard,
                    &fence.node,
                    &trace_id.map(|t| t.0),
                ],
            )
            .await
            .map_err(db)?;
        }
        TurnMark::Ended(end) => {
            let status = if end.ok { "done" } else { "failed" };
            tx.execute(
                "UPDATE turns SET status = $3, code = $4, last_frame = $5, ended_at = now()
                 WHERE thread_id = $1 AND turn = $2",
                &[
                    &thread.0,
                    &as_i64(end.turn),
                    &status,
                    &end.code,
                    &as_i64(end.last_frame),
                ],
            )
            .await
            .map_err(db)?;
        }
    }
    Ok(())
}

/// How a turn stands in its `turns` row, as a reader reattaching on
/// another node learns it (`scale.md` §4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TurnState {
    /// Its node is running it (or died, and no node has taken over yet).
    Running,
    /// It ended on its node; its `done` has index `last_frame`.
    Done { last_frame: u64 },
    /// It ended without its answer stored: its node stopped (`NODE_FAILED`,
    /// no `last_frame`) or the turn broke (`code`).
    Failed {
        code: Option<String>,
        last_frame: Option<u64>,
    },
}

impl PgStore {
    /// Turn `turn` of `thread`'s row, if one was written.
    pub async fn turn_state(
        &self,
        thread: ThreadId,
        turn: u64,
    ) -> Result<Option<TurnState>, StoreError> {
        let Ok(turn) = i64::try_from(turn) else {
            return Ok(None);
        };
        let session = self.session().await?;
        let row = session
            .db()
            .query_opt(
                "SELECT status, last_frame, code FROM turns WHERE thread_id = $1 AND turn = $2",
                &[&thread.0, &turn],
            )
            .await
            .map_err(db)?;
        Ok(row.map(|row| {
            let last_frame = row
                .get::<_, Option<i64>>(1)
                .map(|n| u64::try_from(n).unwrap_or(0));
            match row.get::<_, &str>(0) {
                "done" => TurnState::Done {
                    last_frame: last_frame.unwrap_or(0),
                },
                "failed" => TurnState::Failed {
                    code: row.get(2),
                    last_frame,
                },
                _ => TurnState::Running,
            }
        }))
    }
}
