//! `ThreadActor`: the one owner of a thread's live state.
//!
//! It queues sends and runs them one at a time in arrival order, holds the
//! cancel handle of the running turn, and caches the thread's context between
//! turns. A turn runs as its own task on the arbiter of whoever posted it (the
//! HTTP worker that relays its stream, so each token reaches the client's
//! socket without crossing threads), or on the actor's own arbiter. If that
//! task panics or its arbiter goes away, the actor reports `error` +
//! `done {ok:false}` on the stream, drops its cache (so the next turn reloads
//! the thread from the store, as a restarted actor would) and goes on with the
//! queue.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};

use actix::dev::ArbiterHandle;
use actix::prelude::*;
use chrono::Utc;
use tokio::sync::{mpsc, oneshot};

use crate::events::StreamFrame;
use crate::ids::{OrgId, ThreadId};
use crate::provider::ContextMessage;
use crate::turn::{Emitter, Engine, TurnInput, TurnRequest, run_turn};

/// When a thread actor last did something, and whether it is busy; read by
/// the registry without going through the actor's mailbox.
#[derive(Debug)]
pub struct Activity {
    last_active_ms: AtomicI64,
    busy: AtomicBool,
    /// Bytes the actor holds: its context cache and its queued sends.
    bytes: AtomicUsize,
    /// The sum of `bytes` over every live actor, shared with the registry
    /// (kept by delta, so checking the budget never walks the actors).
    total: Arc<AtomicUsize>,
}

impl Drop for Activity {
    fn drop(&mut self) {
        self.total
            .fetch_sub(*self.bytes.get_mut(), Ordering::Relaxed);
    }
}

impl Activity {
    /// The activity of a new actor, counted into `total`.
    pub fn new(total: Arc<AtomicUsize>) -> Self {
        Self {
            last_active_ms: AtomicI64::new(0),
            busy: AtomicBool::new(false),
            bytes: AtomicUsize::new(0),
            total,
        }
    }

    /// Sets the bytes this actor holds, keeping the total in step.
    fn set_bytes(&self, bytes: usize) {
        let old = self.bytes.swap(bytes, Ordering::Relaxed);
        if bytes >= old {
            self.total.fetch_add(bytes - old, Ordering::Relaxed);
        } else {
            self.total.fetch_sub(old - bytes, Ordering::Relaxed);
        }
    }

    fn touch(&self, busy: bool) {
        self.last_active_ms
            .store(Utc::now().timestamp_millis(), Ordering::Relaxed);
        self.busy.store(busy, Ordering::Relaxed);
    }

    /// Milliseconds since the epoch of the last activity.
    pub fn last_active_ms(&self) -> i64 {
        self.last_active_ms.load(Ordering::Relaxed)
    }

    /// Whether a turn is running or queued.
    pub fn is_busy(&self) -> bool {
        self.busy.load(Ordering::Relaxed)
    }

    /// Bytes the actor holds (context cache and queued sends), as last counted.
    pub fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }
}

/// The bytes a context cache holds (its text; the fixed overhead is small).
fn context_bytes(history: &[ContextMessage]) -> usize {
    history
        .iter()
        .map(|m| {
            m.content.len()
                + m.tool_calls
                    .iter()
                    .map(|c| c.name.len() + c.id.len() + c.arguments.to_string().len())
                    .sum::<usize>()
                + 64
        })
        .sum()
}

/// Queue a user message; its frames go to `sink`.
#[derive(Message, Clone)]
#[rtype(result = "()")]
pub struct PostUserMessage {
    pub request: TurnRequest,
    pub sink: mpsc::Sender<StreamFrame>,
    /// Where the turn runs: the arbiter that reads `sink`, or (`None`) the
    /// actor's own.
    pub runs_on: Option<ArbiterHandle>,
}

/// Stop the running answer; answers whether one was running.
#[derive(Message)]
#[rtype(result = "bool")]
pub struct Stop;

/// Stop the actor if it has nothing to do; answers whether it stopped.
#[derive(Message)]
#[rtype(result = "bool")]
pub struct StopIfIdle;

struct QueuedTurn {
    request: TurnRequest,
    sink: mpsc::Sender<StreamFrame>,
    runs_on: Option<ArbiterHandle>,
}

struct RunningTurn {
    cancel: Option<oneshot::Sender<()>>,
}

/// The actor of one thread.
pub struct ThreadActor {
    org: OrgId,
    thread: ThreadId,
    engine: Arc<Engine>,
    queue: VecDeque<QueuedTurn>,
    running: Option<RunningTurn>,
    history: Option<Vec<ContextMessage>>,
    /// What `history` holds, counted once when it is set (not per message).
    history_bytes: usize,
    activity: Arc<Activity>,
}

impl ThreadActor {
    /// Counts what the actor holds, for the registry's byte budget.
    fn count_bytes(&self) {
        let cached = self.history_bytes;
        let queued: usize = self
            .queue
            .iter()
            .map(|t| t.request.content.len() + 256)
            .sum();
        self.activity.set_bytes(cached + queued);
    }

    /// A new actor; its context is loaded from the store on the first turn.
    pub fn new(org: OrgId, thread: ThreadId, engine: Arc<Engine>, activity: Arc<Activity>) -> Self {
        activity.touch(false);
        Self {
            org,
            thread,
            engine,
            queue: VecDeque::new(),
            running: None,
            history: None,
            history_bytes: 0,
            activity,
        }
    }

    fn start_next(&mut self, ctx: &mut Context<Self>) {
        if self.running.is_some() {
            return;
        }
        let Some(turn) = self.queue.pop_front() else {
            self.activity.touch(false);
            return;
        };
        self.activity.touch(true);
        let (cancel_tx, cancel_rx) = oneshot::channel();
        let emitter = Emitter::new(turn.sink);
        let input = TurnInput {
            engine: Arc::clone(&self.engine),
            org: self.org,
            thread: self.thread,
            request: turn.request,
            emitter: emitter.clone(),
            cancel: cancel_rx,
            history: self.history.take(),
        };
        self.running = Some(RunningTurn {
            cancel: Some(cancel_tx),
        });
        let task = spawn_turn(input, turn.runs_on);
        let thread = self.thread;
        ctx.spawn(task.into_actor(self).map(move |outcome, actor, ctx| {
            match outcome {
                Ok(history) => {
                    actor.history_bytes = history.as_deref().map_or(0, context_bytes);
                    actor.history = history;
                }
                Err(error) => {
                    tracing::error!(%thread, %error, "a turn failed; reloading the thread from the store");
                    actor.history = None;
                    actor.history_bytes = 0;
                    actix::spawn(async move {
                        emitter
                            .fail("INTERNAL", "the turn failed unexpectedly", String::new())
                            .await;
                    });
                }
            }
            actor.running = None;
            actor.count_bytes();
            actor.start_next(ctx);
        }));
    }
}

/// How a turn task ended without returning: it panicked, or its arbiter
/// stopped before it finished.
#[derive(Debug)]
struct TurnLost(String);

impl std::fmt::Display for TurnLost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Runs the turn as its own task (so a panic is caught by its join handle),
/// on `arbiter` when given, else on the current one.
async fn spawn_turn(
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

impl Actor for ThreadActor {
    type Context = Context<Self>;
}

impl Handler<PostUserMessage> for ThreadActor {
    type Result = ();

    fn handle(&mut self, msg: PostUserMessage, ctx: &mut Context<Self>) {
        self.queue.push_back(QueuedTurn {
            request: msg.request,
            sink: msg.sink,
            runs_on: msg.runs_on,
        });
        self.activity.touch(true);
        self.start_next(ctx);
        self.count_bytes();
    }
}

impl Handler<Stop> for ThreadActor {
    type Result = bool;

    fn handle(&mut self, _: Stop, _: &mut Context<Self>) -> bool {
        match self.running.as_mut().and_then(|r| r.cancel.take()) {
            Some(cancel) => cancel.send(()).is_ok(),
            None => false,
        }
    }
}

impl Handler<StopIfIdle> for ThreadActor {
    type Result = bool;

    fn handle(&mut self, _: StopIfIdle, ctx: &mut Context<Self>) -> bool {
        let idle = self.running.is_none() && self.queue.is_empty();
        if idle {
            ctx.stop();
        }
        idle
    }
}
