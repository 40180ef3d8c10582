//! Admission: the one place a send is admitted or refused (`streams.md`):
//! its idempotency key first, then shutdown, the send's rules
//! ([`crate::send_rules`]), the busy policy, the thread's queue cap and the
//! org's.

use std::sync::atomic::Ordering;

use actix::dev::ArbiterHandle;
use actix::prelude::*;
use chrono::Utc;

use super::{QueuedTurn, ThreadActor};
use crate::codes;
use crate::domain::Agent;
use crate::frames::{FrameId, FrameReader, Position};
use crate::idempotency::{IdempotencyKey, IdempotencyRecord};
use crate::provider::ContextMessage;
use crate::send_rules::{self, BrokenRule};
use crate::turn::{CancelReason, TurnRequest};

/// What a send asks of a busy thread (a turn running or queued).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IfBusy {
    /// Wait behind the others, in arrival order.
    #[default]
    Queue,
    /// Refuse the send.
    Reject,
    /// Stop the running turn, drop the queued ones, then run.
    Interrupt,
}

impl IfBusy {
    /// The policy's API name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queue => "queue",
            Self::Reject => "reject",
            Self::Interrupt => "interrupt",
        }
    }
}

/// Why a send was not admitted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The send breaks one of its rules (409 or 422; nothing was stored).
    #[error(transparent)]
    Rule(#[from] BrokenRule),
    /// `ifBusy: reject` on a busy thread.
    #[error("the thread is busy (a turn is running or queued)")]
    Busy,
    /// As many sends wait as the thread may queue.
    #[error("the thread's queue is full")]
    QueueFull,
    /// The thread's turn numbers could not be read from the store.
    #[error("the thread could not be loaded")]
    Unavailable,
    /// The server is shutting down.
    #[error("the server is shutting down")]
    ShuttingDown,
    /// The node's lease may lapse before the turn's writes (`scale.md`
    /// §3.2): it admits no turn until its next heartbeat.
    #[error("this node's lease is lapsing")]
    LeaseLapsing,
    /// The org runs as many turns as it may and as many wait.
    #[error("the org's queue of turns is full")]
    OrgQueueFull,
    /// The `Idempotency-Key` was used for a different request.
    #[error("the idempotency key was used for a different request")]
    KeyReused,
}

/// The actor's answer to a send.
pub enum Admission {
    /// Admitted as turn `turn`; `reader` reads its frames from the first.
    Accepted { turn: u64, reader: FrameReader },
    /// A repeat of a keyed send: turn `turn`'s frames from the first while
    /// they are kept (`reader`), else what the store kept (`record`).
    Duplicate {
        turn: u64,
        reader: Option<FrameReader>,
        /// Boxed: the record is large and this answer is rare.
        record: Option<Box<IdempotencyRecord>>,
    },
    /// Not admitted; nothing was stored.
    Refused(Refusal),
}

/// Ask the thread's actor to admit a send.
#[derive(Message)]
#[rtype(result = "Admission")]
pub struct PostUserMessage {
    pub request: TurnRequest,
    pub if_busy: IfBusy,
    /// Where the turn runs: the arbiter that relays its stream, or (`None`)
    /// the actor's own.
    pub runs_on: Option<ArbiterHandle>,
    /// The thread's agent as the sender read it with the thread (deleted or
    /// not; `None`: not found): read there, with the access check, rather
    /// than here, so the mailbox does not wait for the store on every send.
    /// The turn reads it again when it starts.
    pub agent: Option<Agent>,
}

/// Keys of admitted sends an actor remembers; older ones are looked up in
/// the store.
pub const MAX_RECENT_KEYS: usize = 256;

impl Handler<PostUserMessage> for ThreadActor {
    type Result = AtomicResponse<Self, Admission>;

    /// The one place a send is admitted or refused (`streams.md`). What
    /// the decision needs from the store and the actor does not hold (a
    /// keyed send's record it does not remember, the end of the context
    /// when the send's rules need it and no turn holds it) is read first;
    /// the mailbox waits meanwhile, so sends are still decided in order and
    /// against the thread as it is. Most sends need neither.
    fn handle(&mut self, msg: PostUserMessage, _: &mut Context<Self>) -> Self::Result {
        let key = msg.request.idempotency.and_then(|key| {
            let frames_kept = self.recent.get(&key.key).is_some_and(|(_, turn)| {
                self.log.position(FrameId { turn: *turn, n: 0 }) == Position::Available
            });
            (!frames_kept).then_some(key.key)
        });
        // A busy thread's context is the running turn's to change: a send
        // that waits is checked against it when its turn starts.
        let idle = self.running.is_none() && self.queue.is_empty();
        let tail = idle && self.history.is_none() && send_rules::needs_context(&msg.request);
        let lookup = (key.is_some() || tail).then(|| {
            let reads = self.engine.store.admission_reads(self.thread, key, tail);
            async move {
                let reads = reads.await?;
                Ok::<_, crate::ports::StoreError>(Looked {
                    stored: reads.keyed.filter(|r| !r.expired(Utc::now())),
                    tail: reads.tail,
                })
            }
        });
        AtomicResponse::new(Box::pin(
            async move {
                match lookup {
                    Some(lookup) => lookup.await,
                    None => Ok(Looked::default()),
                }
            }
            .into_actor(self)
            .map(move |looked, actor, ctx| match looked {
                Ok(looked) => actor.admit(msg, looked, ctx),
                Err(error) => {
                    tracing::error!(thread = %actor.thread, %error, "reading a send's thread failed");
                    Admission::Refused(Refusal::Unavailable)
                }
            }),
        ))
    }
}

/// What admission read from the store for one send.
#[derive(Default)]
struct Looked {
    /// The keyed send's record, if the store has one and it has not expired.
    stored: Option<IdempotencyRecord>,
    /// The end of the thread's context, when the rules need it and the
    /// actor does not hold the context.
    tail: Option<Vec<ContextMessage>>,
}

impl ThreadActor {
    /// Takes in the thread's last turn as the actor starts: the number its
    /// first send gets, and where its frame log's turns begin (a watcher
    /// waits for that turn, not one that ran before this actor).
    pub(super) fn number_from(&mut self, last: crate::LastTurn) {
        self.next_turn = last.next_for(self.fence.as_ref(), self.limits.max_queued);
        self.log.start_after(self.next_turn - 1);
    }

    /// Decides a send: idempotency first (a repeat is answered whatever
    /// the thread now says), then shutdown, the send's rules, the busy
    /// policy and the queue cap.
    fn admit(
        &mut self,
        msg: PostUserMessage,
        looked: Looked,
        ctx: &mut Context<Self>,
    ) -> Admission {
        let Looked { stored, tail } = looked;
        if let Some(key) = msg.request.idempotency {
            let known = self.recent.get(&key.key).copied();
            match (known, stored) {
                (Some((request, turn)), stored) => {
                    if request != key.request {
                        return Admission::Refused(Refusal::KeyReused);
                    }
                    return self.duplicate(turn, stored);
                }
                (None, Some(record)) => {
                    if !record.same_request(&key) {
                        return Admission::Refused(Refusal::KeyReused);
                    }
                    return self.duplicate(record.turn, Some(record));
                }
                (None, None) => {}
            }
        }
        if self.closing.load(Ordering::Relaxed) {
            return Admission::Refused(Refusal::ShuttingDown);
        }
        if self
            .engine
            .leases
            .as_ref()
            .is_some_and(|l| !l.admits_turns())
        {
            return Admission::Refused(Refusal::LeaseLapsing);
        }
        if self.next_turn == 0 {
            return Admission::Refused(Refusal::Unavailable);
        }
        let idle = self.running.is_none() && self.queue.is_empty();
        let context = match (&self.history, &tail) {
            _ if !idle => None,
            (Some(history), _) => Some(history.as_slice()),
            (None, tail) => tail.as_deref(),
        };
        if let Err(broken) = send_rules::on_request(&msg.request, self.limits.max_content_bytes)
            .and_then(|()| send_rules::against_thread(&msg.request, msg.agent.as_ref(), context))
        {
            return Admission::Refused(broken.into());
        }
        let busy = self.running.is_some() || !self.queue.is_empty();
        match msg.if_busy {
            IfBusy::Reject if busy => return Admission::Refused(Refusal::Busy),
            IfBusy::Queue
                if self.running.is_some() && self.queue.len() >= self.limits.max_queued =>
            {
                return Admission::Refused(Refusal::QueueFull);
            }
            IfBusy::Interrupt => {
                self.cancel_running(CancelReason::Stop);
                self.drop_queue(codes::CANCELLED, "a later send interrupted the thread");
            }
            _ => {}
        }
        // A send that would wait only for its org is refused when the org's
        // queue is full (a busy thread's sends wait in the thread's queue).
        let thread_free = self.running.is_none() && self.queue.is_empty();
        if thread_free && msg.request.delegation.is_none() && self.org_slots.is_full(self.org) {
            return Admission::Refused(Refusal::OrgQueueFull);
        }
        let turn = self.next_turn;
        self.next_turn += 1;
        if let Some(key) = msg.request.idempotency {
            self.remember(key, turn);
        }
        self.log.enqueue(turn);
        let reader = self.log.read_turn(turn);
        self.queue.push_back(Box::new(QueuedTurn {
            turn,
            request: msg.request,
            runs_on: msg.runs_on,
            _queued: crate::turn_metrics::GaugeGuard::new(crate::turn_metrics::names::QUEUED_SENDS),
        }));
        self.activity.touch(true);
        self.start_next(ctx);
        self.count_bytes();
        Admission::Accepted { turn, reader }
    }

    /// A repeat of turn `turn`'s send: its frames while they are kept, else
    /// what the store kept of it.
    fn duplicate(&self, turn: u64, record: Option<IdempotencyRecord>) -> Admission {
        let reader = (self.log.position(FrameId { turn, n: 0 }) == Position::Available)
            .then(|| self.log.read_turn(turn));
        Admission::Duplicate {
            turn,
            reader,
            record: record.map(Box::new),
        }
    }

    /// Keeps a key of an admitted send (the most recent
    /// [`MAX_RECENT_KEYS`] of them; older ones are found in the store).
    fn remember(&mut self, key: IdempotencyKey, turn: u64) {
        if self.recent.len() >= MAX_RECENT_KEYS
            && let Some(oldest) = self.recent_order.pop_front()
        {
            self.recent.remove(&oldest);
        }
        self.recent.insert(key.key, (key.request, turn));
        self.recent_order.push_back(key.key);
    }

    /// Forgets the keys of sends that were dropped before they ran (their
    /// keys are released: nothing of theirs was stored).
    pub(super) fn forget_turns(&mut self, turns: &[u64]) {
        self.recent.retain(|_, (_, turn)| !turns.contains(turn));
        let recent = &self.recent;
        self.recent_order.retain(|key| recent.contains_key(key));
    }
}
