//! `ThreadActor`: the one owner of a thread's live state.
//!
//! It admits or refuses each send (the one place the send rules, in
//! `send_rules`, are applied to a send), numbers the admitted ones, queues
//! them and runs them one at a time in arrival order, holds the cancel
//! handle of the running turn, the thread's frame log (`frames`), and
//! caches the thread's context between turns. Admission lives in
//! `admission`, the budget accounting in `activity`.
//!
//! A turn runs as its own task on the arbiter of whoever posted it (the
//! HTTP worker that relays its stream, so each token reaches the client's
//! socket without crossing threads), or on the actor's own arbiter. If that
//! task panics or its arbiter goes away, the actor reports `error` +
//! `done {ok:false}` on the stream, drops its cache (so the next turn
//! reloads the thread from the store, as a restarted actor would) and goes
//! on with the queue.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, atomic::AtomicBool};

use actix::dev::ArbiterHandle;
use actix::prelude::*;
use tokio::sync::oneshot;

use crate::codes::{self, ErrorCode};
use crate::events::ThreadEvent;
use crate::frames::{FrameLog, Retention};
use crate::ids::{OrgId, ThreadId};
use crate::org_slots::{OrgQueueFull, OrgSlotGranted, OrgSlots};
use crate::provider::ContextMessage;
use crate::turn::{CancelReason, Emitter, Engine, TurnInput, TurnRequest};

mod activity;
mod admission;
mod expiry;
mod lease;
mod task;

pub use activity::Activity;
use activity::context_bytes;
pub use admission::{Admission, IfBusy, MAX_RECENT_KEYS, PostUserMessage, Refusal};
pub use lease::LeaseLost;
use task::spawn_turn;

/// Stop the running answer for `reason` (a stop, a `TURN_TIMEOUT`) and,
/// with `queued`, drop the queued sends; answers whether one was running.
#[derive(Message)]
#[rtype(result = "bool")]
pub struct Stop {
    pub queued: bool,
    pub reason: CancelReason,
}

/// The server is shutting down: drop the queued sends and let watchers go
/// once nothing more will come; with `stop_running`, also stop the running
/// turn (the grace time is over). Answers whether a turn is still running.
#[derive(Message)]
#[rtype(result = "bool")]
pub struct Shutdown {
    pub stop_running: bool,
}

/// Stop the actor if it has nothing to do; answers whether it stopped.
#[derive(Message)]
#[rtype(result = "bool")]
pub struct StopIfIdle;

struct QueuedTurn {
    turn: u64,
    request: TurnRequest,
    runs_on: Option<ArbiterHandle>,
    /// Counts the send in `confer_queued_sends` while it waits.
    _queued: crate::turn_metrics::GaugeGuard,
}

struct RunningTurn {
    cancel: Option<oneshot::Sender<CancelReason>>,
    /// Whether the turn holds one of its org's slots (a delegated turn
    /// runs inside its root's, `agent-extras.md` §3).
    slotted: bool,
}

/// What every thread actor shares with the runtime.
#[derive(Clone)]
pub struct RuntimeShared {
    /// Set when the server starts shutting down.
    pub closing: Arc<AtomicBool>,
    /// The per-org turn cap.
    pub org_slots: Arc<OrgSlots>,
}

/// What a thread actor is configured with.
#[derive(Clone, Copy, Debug)]
pub struct ThreadLimits {
    /// Sends that may wait behind the running turn.
    pub max_queued: usize,
    /// What the frame log keeps.
    pub retention: Retention,
    /// The longest `content` a send may have, in bytes.
    pub max_content_bytes: usize,
}

impl Default for ThreadLimits {
    fn default() -> Self {
        Self {
            max_queued: 8,
            retention: Retention::default(),
            max_content_bytes: 1 << 20,
        }
    }
}

/// The actor of one thread.
pub struct ThreadActor {
    org: OrgId,
    thread: ThreadId,
    engine: Arc<Engine>,
    limits: ThreadLimits,
    /// Boxed: a deque keeps its capacity (four slots at the first send)
    /// for the actor's life, and a whole `QueuedTurn` per slot was about
    /// 1.7 KiB held by every thread that was ever sent to (issue 37's heap
    /// profile of idle streams); boxed, the slots are pointers.
    queue: VecDeque<Box<QueuedTurn>>,
    running: Option<RunningTurn>,
    /// The number the next admitted send gets (0 until loaded).
    next_turn: u64,
    history: Option<Vec<ContextMessage>>,
    /// What `history` holds, counted once when it is set (not per message).
    history_bytes: usize,
    activity: Arc<Activity>,
    log: Arc<FrameLog>,
    /// Set for every actor when the server starts shutting down.
    closing: Arc<AtomicBool>,
    /// The per-org turn cap shared by every actor.
    org_slots: Arc<OrgSlots>,
    /// The front queued turn, while it waits for its org's capacity.
    waiting_org: Option<u64>,
    /// Keys of sends this actor admitted: key → (request hash, turn).
    recent: HashMap<[u8; 32], ([u8; 32], u64)>,
    /// `recent`'s keys, oldest first (its bound).
    recent_order: VecDeque<[u8; 32]>,
    /// The one timer that expires finished turns' frames (`expiry.rs`).
    expiry: Option<actix::SpawnHandle>,
    /// Its lease, taken as it started (`scale.md` §3.4): its cache may be stale once it moved.
    fence: Option<crate::ports::Fence>,
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
        self.activity.set_bytes(cached + queued + self.log.bytes());
    }

    /// A new actor; its context is loaded from the store on the first turn.
    pub fn new(
        org: OrgId,
        thread: ThreadId,
        engine: Arc<Engine>,
        activity: Arc<Activity>,
        log: Arc<FrameLog>,
        limits: ThreadLimits,
        shared: RuntimeShared,
    ) -> Self {
        activity.touch(false);
        Self {
            fence: engine.leases.as_ref().map(|leases| leases.fence(thread)),
            org,
            thread,
            engine,
            limits,
            queue: VecDeque::new(),
            running: None,
            next_turn: 0,
            history: None,
            history_bytes: 0,
            activity,
            log,
            closing: shared.closing,
            org_slots: shared.org_slots,
            waiting_org: None,
            recent: HashMap::new(),
            recent_order: VecDeque::new(),
            expiry: None,
        }
    }

    /// Cancels the running turn; whether one was running.
    fn cancel_running(&mut self, reason: CancelReason) -> bool {
        match self.running.as_mut().and_then(|r| r.cancel.take()) {
            Some(cancel) => cancel.send(reason).is_ok(),
            None => false,
        }
    }

    /// Drops every queued send: each stream ends with `error {code}` and
    /// `done {ok:false}`; nothing of theirs was stored.
    fn drop_queue(&mut self, code: ErrorCode, detail: &str) {
        if let Some(turn) = self.waiting_org.take() {
            self.org_slots.withdraw(self.org, self.thread, turn);
        }
        let dropped: Vec<u64> = self.queue.iter().map(|q| q.turn).collect();
        self.forget_turns(&dropped);
        for queued in self.queue.drain(..) {
            self.log.drop_queued(
                queued.turn,
                ThreadEvent::failure(code, Some(detail.to_owned()), String::new()).into(),
            );
        }
        self.count_bytes();
    }

    /// Starts the front queued turn if nothing runs, once its org has a
    /// slot for it (else it waits for [`OrgSlotGranted`]).
    fn start_next(&mut self, ctx: &mut Context<Self>) {
        if self.running.is_some() || self.waiting_org.is_some() {
            return;
        }
        let Some(front) = self.queue.front().map(|q| q.turn) else {
            self.activity.touch(false);
            return;
        };
        self.activity.touch(true);
        if self
            .queue
            .front()
            .is_some_and(|q| q.request.delegation.is_some())
        {
            // A delegated turn runs inside its root's slot, never queued.
            self.run_front(ctx, false);
            return;
        }
        let log = Arc::clone(&self.log);
        let grant = ctx.address().recipient();
        match self
            .org_slots
            .acquire(self.org, self.thread, front, grant, log)
        {
            Ok(true) => self.run_front(ctx, true),
            Ok(false) => self.waiting_org = Some(front),
            Err(OrgQueueFull) => {
                self.queue.pop_front();
                self.forget_turns(&[front]);
                self.log.drop_queued(
                    front,
                    ThreadEvent::failure(
                        codes::ORG_QUEUE_FULL,
                        Some("the org's queue of turns is full; send again later".into()),
                        String::new(),
                    )
                    .into(),
                );
                self.start_next(ctx);
            }
        }
    }

    /// Runs the front queued turn (`slotted`: its org slot is held).
    fn run_front(&mut self, ctx: &mut Context<Self>, slotted: bool) {
        let Some(turn) = self.queue.pop_front() else {
            if slotted {
                self.org_slots.release(self.org, self.thread);
            }
            return;
        };
        let (cancel_tx, cancel_rx) = oneshot::channel();
        self.log.begin(turn.turn);
        let emitter = Emitter::new(Arc::clone(&self.log), turn.turn);
        let input = TurnInput {
            engine: Arc::clone(&self.engine),
            org: self.org,
            thread: self.thread,
            turn: turn.turn,
            request: turn.request,
            emitter: emitter.clone(),
            cancel: cancel_rx,
            history: self.history.take(),
            fence: self.fence.map(Box::new),
        };
        self.running = Some(RunningTurn {
            cancel: Some(cancel_tx),
            slotted,
        });
        let task = spawn_turn(input, turn.runs_on);
        ctx.spawn(task.into_actor(self).map(move |outcome, actor, ctx| {
            match outcome {
                Ok(history) => {
                    actor.history_bytes = history.as_deref().map_or(0, context_bytes);
                    actor.history = history;
                }
                Err(error) => actor.turn_crashed(ctx, &emitter, &error),
            }
            if actor.running.take().is_some_and(|r| r.slotted) {
                actor.org_slots.release(actor.org, actor.thread);
            }
            // Only now, with the thread free: a send made on seeing it is
            // decided against the finished turn.
            emitter.release_done();
            actor.count_bytes();
            actor.arm_expiry(ctx);
            actor.start_next(ctx);
        }));
    }
}
impl Actor for ThreadActor {
    type Context = Context<Self>;

    /// Reads the thread's last turn number before any message is handled.
    fn started(&mut self, ctx: &mut Context<Self>) {
        let thread = self.thread;
        ctx.wait(self.engine.store.last_turn(thread).into_actor(self).map(
            move |last, actor, _| match last {
                Ok(last) => actor.number_from(last),
                Err(error) => {
                    tracing::error!(%thread, %error, "reading the thread's turn number failed");
                }
            },
        ));
    }
}

impl Handler<Stop> for ThreadActor {
    type Result = bool;

    fn handle(&mut self, msg: Stop, _: &mut Context<Self>) -> bool {
        let stopped = self.cancel_running(msg.reason);
        if msg.queued {
            self.drop_queue(codes::CANCELLED, "the queued sends were stopped");
        }
        stopped
    }
}

impl Handler<Shutdown> for ThreadActor {
    type Result = bool;

    fn handle(&mut self, msg: Shutdown, _: &mut Context<Self>) -> bool {
        self.drop_queue(
            codes::SHUTTING_DOWN,
            "the server is shutting down; send again when it is back",
        );
        self.log.close();
        if msg.stop_running {
            self.cancel_running(CancelReason::Shutdown);
        }
        self.running.is_some()
    }
}

impl Handler<OrgSlotGranted> for ThreadActor {
    type Result = ();

    fn handle(&mut self, msg: OrgSlotGranted, ctx: &mut Context<Self>) {
        if self.waiting_org == Some(msg.turn) {
            self.waiting_org = None;
            self.run_front(ctx, true);
        } else {
            // The turn was dropped while the slot came: give it back.
            self.org_slots.release(self.org, self.thread);
        }
    }
}

/// The thread's frame log, for a reattach or a watcher.
#[derive(Message)]
#[rtype(result = "Arc<FrameLog>")]
pub struct Frames;

impl Handler<Frames> for ThreadActor {
    type Result = MessageResult<Frames>;

    fn handle(&mut self, _: Frames, _: &mut Context<Self>) -> Self::Result {
        self.activity.touch(self.activity.is_busy());
        MessageResult(Arc::clone(&self.log))
    }
}

impl Handler<StopIfIdle> for ThreadActor {
    type Result = bool;

    fn handle(&mut self, _: StopIfIdle, ctx: &mut Context<Self>) -> bool {
        let idle = self.running.is_none()
            && self.waiting_org.is_none()
            && self.queue.is_empty()
            && self.log.readers() == 0;
        if idle {
            ctx.stop();
        }
        idle
    }
}
