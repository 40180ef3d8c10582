//! A turn as a task of its own, on the arbiter of whoever posted it: a
//! panic or a stopped arbiter comes back as an error, not a lost turn.

use actix::dev::ArbiterHandle;
use tokio::sync::oneshot;

use actix::prelude::*;

use super::ThreadActor;
use crate::codes;
use crate::provider::ContextMessage;
use crate::turn::{Emitter, TurnInput, failed_end, mark_failed, run_turn};

/// How a turn task ended without returning: it panicked, or its arbiter
/// stopped before it finished.
#[derive(Debug)]
pub(super) struct TurnLost(String);

impl std::fmt::Display for TurnLost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Runs the turn as its own task (so a panic is caught by its join handle),
/// on `arbiter` when given, else on the current one.
pub(super) async fn spawn_turn(
    input: TurnInput,
    arbiter: Option<ArbiterHandle>,
) -> Result<Option<Vec<ContextMessage>>, TurnLost> {
    let lost = |e: tokio::task::JoinError| TurnLost(e.to_string());
    let Some(arbiter) = arbiter else {
        return actix::spawn(run_turn(input)).await.map_err(lost);
    };
    let (done_tx, done_rx) = oneshot::channel();
    let spawned = arbiter.spawn(async move {
        let _ = done_tx.send(actix::spawn(run_turn(input)).await.map_err(lost));
    });
    if !spawned {
        return Err(TurnLost("the stream's arbiter has stopped".into()));
    }
    done_rx.await.unwrap_or_else(|_| {
        Err(TurnLost(
            "the stream's arbiter stopped during the turn".into(),
        ))
    })
}

impl ThreadActor {
    /// A turn's task ended without returning: its stream ends with
    /// `INTERNAL`, its `turns` row is marked `failed`, and the thread's
    /// context is reloaded from the store for the next turn.
    pub(super) fn turn_crashed(
        &mut self,
        ctx: &mut Context<Self>,
        emitter: &Emitter,
        error: &TurnLost,
    ) {
        let thread = self.thread;
        tracing::error!(%thread, %error, "a turn failed; reloading the thread from the store");
        self.history = None;
        self.history_bytes = 0;
        let end = failed_end(emitter, &codes::INTERNAL);
        let mark = mark_failed(self.engine.store.clone(), thread, self.fence, end);
        ctx.spawn(mark.into_actor(self));
        emitter.fail(
            codes::INTERNAL,
            "the turn failed unexpectedly",
            String::new(),
        );
    }
}
