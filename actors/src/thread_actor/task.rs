//! A turn as a task of its own, on the arbiter of whoever posted it: a
//! panic or a stopped arbiter comes back as an error, not a lost turn.

use actix::dev::ArbiterHandle;
use tokio::sync::oneshot;

use crate::provider::ContextMessage;
use crate::turn::{TurnInput, run_turn};

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
