//! A turn's writes to its thread: each made durable before the turn goes
//! on, timed, and a failed one ended in the turn's stream with its cause.

use std::sync::Arc;
use std::time::Instant;

use super::Emitter;
use crate::codes;
use crate::domain::Message;
use crate::ids::ThreadId;
use crate::ports::{Fence, StoreError, ThreadAppend, ThreadStore, TurnEnd};
use crate::timings::micros_between;

/// A durable append: the listed message as stored, and where the time went.
pub(super) struct DurableAppend {
    pub listed: Option<Message>,
    pub append_us: u64,
    pub flush_us: u64,
}

/// Ends the turn's stream after a failed write: `NODE_LOST_LEASE` when
/// the node no longer holds the thread's shard (nothing of the write was
/// kept), else `INTERNAL`.
pub(super) fn fail_write(emitter: &Emitter, error: &StoreError, content: String) {
    match error {
        StoreError::Fenced => emitter.fail(
            codes::NODE_LOST_LEASE,
            "this node no longer holds the thread; the answer was not stored",
            content,
        ),
        _ => emitter.fail(codes::INTERNAL, "internal error", content),
    }
}

/// How a turn that ends without its answer's write is kept in its
/// `turns` row: `failed` with `code`, its `done` the second frame to come
/// (`emitter` is about to end the stream with `error` and `done`).
pub(crate) fn failed_end(emitter: &Emitter, code: &codes::ErrorCode) -> TurnEnd {
    TurnEnd {
        turn: emitter.turn(),
        ok: false,
        code: Some(code.code.into()),
        last_frame: emitter.done_index(2),
    }
}

/// Marks such a turn's row (`scale.md` §3.5), so no row stays `running`.
/// Without a fence (sled) there is no row. A failure here is logged: the
/// row's node is live, and the stream has told its readers.
pub(crate) async fn mark_failed(
    store: Arc<dyn ThreadStore>,
    thread: ThreadId,
    fence: Option<Fence>,
    end: TurnEnd,
) {
    let Some(fence) = fence else { return };
    let turn = end.turn;
    if let Err(error) = store.end_turn(thread, Some(fence), end).await {
        tracing::warn!(%thread, turn, %error, "marking a failed turn's row failed");
    }
}

/// Writes `write` to the thread and waits until it is durable.
pub(super) async fn append_durably(
    store: &Arc<dyn ThreadStore>,
    thread: ThreadId,
    write: ThreadAppend,
) -> Result<DurableAppend, StoreError> {
    let began = Instant::now();
    let done = store.append_durably(thread, write).await?;
    Ok(DurableAppend {
        listed: done.listed,
        append_us: micros_between(began, done.applied_at),
        flush_us: micros_between(done.applied_at, Instant::now()),
    })
}
