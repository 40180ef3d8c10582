//! The answer to a repeated keyed send whose turn's frames are no longer
//! kept (`streams.md`): rebuilt from the keyed send's stored record.

use confer_actors::codes::{self, ErrorCode};
use confer_actors::{DoneEvent, IdempotencyRecord, MetaEvent, OutcomeKind, ThreadEvent, ThreadId};

use crate::error::ApiError;
use crate::state::AppState;

/// The answer to a repeated keyed send whose frames are no longer kept:
/// `meta`, then `error` if the turn failed or was cancelled, then one `done`
/// rebuilt from the store (`streams.md`).
pub async fn rebuilt_turn(
    state: &AppState,
    thread: ThreadId,
    turn: u64,
    record: Option<IdempotencyRecord>,
) -> Result<Vec<ThreadEvent>, ApiError> {
    let Some(record) = record else {
        return Ok(failed(
            codes::INTERNAL,
            "the original turn's record is gone",
        ));
    };
    let mut events = vec![ThreadEvent::Meta(Box::new(MetaEvent {
        started_at: record.started_at,
        thread_id: thread,
        user_message_id: record.user_message_id,
        model: record.model.clone(),
        shadowed_tools: Vec::new(),
        // A rebuilt answer is the sender's own: it knows its message.
        user_message: None,
        turn_kind: None,
    }))];
    let Some(outcome) = record.outcome else {
        tracing::warn!(%thread, turn, "a repeated send's turn never finished");
        events.extend(failed(codes::INTERNAL, "the original turn did not finish"));
        return Ok(events);
    };
    let content = match outcome.answer_seq {
        Some(seq) => state
            .store
            .threads()
            .messages(thread, seq - 1, 1)
            .await?
            .0
            .into_iter()
            .next()
            .map(|m| m.content)
            .unwrap_or_default(),
        None => String::new(),
    };
    let failed_with = outcome.error_code.clone();
    if let Some(code) = &failed_with {
        events.push(ThreadEvent::Error {
            code: code.clone(),
            detail: None,
        });
    }
    let (ok, stopped, requires_action) = match outcome.kind {
        OutcomeKind::Ok | OutcomeKind::Paused => (true, None, None),
        OutcomeKind::RequiresAction => (true, None, Some(true)),
        OutcomeKind::Stopped => (failed_with.is_none(), Some(true), None),
        OutcomeKind::Error | OutcomeKind::Cancelled => (false, None, None),
    };
    let paused = (outcome.kind == OutcomeKind::Paused).then_some("compaction");
    events.push(ThreadEvent::Done(Box::new(DoneEvent {
        ok,
        message_id: outcome.message_id,
        content,
        usage: outcome.usage,
        stopped,
        requires_action,
        gap: None,
        paused,
    })));
    Ok(events)
}

fn failed(code: ErrorCode, detail: &str) -> Vec<ThreadEvent> {
    ThreadEvent::failure(code, Some(detail.to_owned()), String::new()).into()
}
