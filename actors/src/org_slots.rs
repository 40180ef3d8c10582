//! The cap on concurrent turns per org (`security.md`,
//! `CONFER_MAX_ACTIVE_TURNS_PER_ORG`): a turn takes one of its org's slots
//! to run; when none is free it waits in the org's FIFO, across threads, and
//! its stream shows `queued {position, reason: "org"}`. The FIFO holds at
//! most `max_waiting` turns (then 429 `ORG_QUEUE_FULL`). Slots are granted
//! in arrival order by messaging the waiting turn's actor.
//!
//! When several nodes share the store (`scale.md` §5), the slots and the
//! FIFO are rows of the cluster's ledger ([`Leases::take_org_slot`]), so
//! the cap holds across nodes and turns start in the order they queued
//! whichever node runs them: one task per org queues the node's waiting
//! turns there and takes a slot for its front turn when that turn is the
//! org's first, woken by a local release or every second (a release on
//! another node); each waiting turn's position is its place in the
//! cluster's queue.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use actix::prelude::*;
use tokio::sync::Notify;

use crate::frames::FrameLog;
use crate::ids::{OrgId, ThreadId};
use crate::turn::Leases;

/// How often a turn waiting for a slot on the cluster's ledger looks
/// again without a local release (a slot freed on another node).
const LEDGER_POLL: Duration = Duration::from_secs(1);

/// A slot was granted to the waiting turn `turn`; the actor runs it (or
/// gives the slot back if the turn was dropped meanwhile).
#[derive(Message)]
#[rtype(result = "()")]
pub struct OrgSlotGranted {
    pub turn: u64,
}

/// A turn waiting for its org's capacity.
struct Waiter {
    thread: ThreadId,
    turn: u64,
    grant: Recipient<OrgSlotGranted>,
    log: Arc<FrameLog>,
}

#[derive(Default)]
struct OrgQueue {
    /// Slots held by this node's turns.
    active: usize,
    waiting: VecDeque<Waiter>,
    /// Whether a task takes ledger slots for the waiting turns.
    granting: bool,
    /// Wakes that task (a local release).
    wake: Arc<Notify>,
}

/// The org's FIFO is full.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the org's queue of turns is full")]
pub struct OrgQueueFull;

/// Every org's slots; shared by all thread actors.
pub struct OrgSlots {
    /// Turns that may run at once per org; 0 is unlimited.
    limit: usize,
    max_waiting: usize,
    orgs: Mutex<HashMap<OrgId, OrgQueue>>,
    /// The cluster's ledger of slots, when several nodes share the cap.
    ledger: Option<Arc<dyn Leases>>,
}

impl OrgSlots {
    /// `limit` turns per org at once (0: unlimited), `max_waiting` queued.
    pub fn new(limit: usize, max_waiting: usize, ledger: Option<Arc<dyn Leases>>) -> Self {
        Self {
            limit,
            max_waiting,
            orgs: Mutex::new(HashMap::new()),
            ledger,
        }
    }

    /// Wakes every org's waiting turns to ask the cluster's ledger again
    /// (a slot was freed on another node).
    pub fn ring(&self) {
        for queue in self.lock().values() {
            queue.wake.notify_one();
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<OrgId, OrgQueue>> {
        // The map holds counts and queues; a panic elsewhere leaves them usable.
        self.orgs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether a turn of `org` about to start would be refused: no free
    /// slot and a full queue.
    pub fn is_full(&self, org: OrgId) -> bool {
        if self.limit == 0 {
            return false;
        }
        let shared = self.ledger.is_some();
        self.lock().get(&org).is_some_and(|q| {
            (shared || q.active >= self.limit) && q.waiting.len() >= self.max_waiting
        })
    }

    /// Takes a slot for `turn` of `thread` (`Ok(true)`), or queues it
    /// (`Ok(false)`: `grant` is told when a slot is its), or refuses.
    ///
    /// With a ledger the answer is always a wait: the slot is the
    /// ledger's to give, and the turn shows no `queued` unless the first
    /// try finds none.
    pub fn acquire(
        self: &Arc<Self>,
        org: OrgId,
        thread: ThreadId,
        turn: u64,
        grant: Recipient<OrgSlotGranted>,
        log: Arc<FrameLog>,
    ) -> Result<bool, OrgQueueFull> {
        if self.limit == 0 {
            return Ok(true);
        }
        let mut orgs = self.lock();
        let queue = orgs.entry(org).or_default();
        if self.ledger.is_none() && queue.active < self.limit && queue.waiting.is_empty() {
            queue.active += 1;
            return Ok(true);
        }
        if queue.waiting.len() >= self.max_waiting {
            return Err(OrgQueueFull);
        }
        queue.waiting.push_back(Waiter {
            thread,
            turn,
            grant,
            log,
        });
        match &self.ledger {
            None => tell_positions(queue),
            Some(_) if queue.granting => queue.wake.notify_one(),
            Some(ledger) => {
                queue.granting = true;
                let granter = granter(Arc::clone(self), Arc::clone(ledger), org);
                tokio::spawn(granter);
            }
        }
        Ok(false)
    }

    /// A turn of `org` that held a slot ended: the slot goes to the next
    /// waiting turn, if any.
    pub fn release(&self, org: OrgId, thread: ThreadId) {
        if self.limit == 0 {
            return;
        }
        let mut orgs = self.lock();
        if let Some(ledger) = &self.ledger {
            let wake = orgs.get_mut(&org).map(|queue| {
                queue.active = queue.active.saturating_sub(1);
                Arc::clone(&queue.wake)
            });
            let ledger = Arc::clone(ledger);
            tokio::spawn(async move {
                if let Err(error) = ledger.give_org_slot(org, thread).await {
                    tracing::warn!(%error, %org, "giving an org turn slot back failed");
                }
                if let Some(wake) = wake {
                    wake.notify_one();
                }
            });
            forget_if_idle(&mut orgs, org);
            return;
        }
        let Some(queue) = orgs.get_mut(&org) else {
            return;
        };
        queue.active = queue.active.saturating_sub(1);
        while queue.active < self.limit {
            let Some(next) = queue.waiting.pop_front() else {
                break;
            };
            next.log.org_position(next.turn, None);
            // The slot is the waiter's from now; its actor gives it back if
            // the turn is gone. An actor that no longer runs gets none.
            if next.grant.connected() {
                queue.active += 1;
                next.grant.do_send(OrgSlotGranted { turn: next.turn });
            }
        }
        tell_positions(queue);
        if queue.active == 0 && queue.waiting.is_empty() {
            orgs.remove(&org);
        }
    }

    /// Removes a waiting turn that was dropped before its slot came.
    pub fn withdraw(&self, org: OrgId, thread: ThreadId, turn: u64) {
        if let Some(ledger) = &self.ledger {
            let ledger = Arc::clone(ledger);
            tokio::spawn(async move {
                if let Err(error) = ledger.leave_org_queue(org, thread, turn).await {
                    tracing::warn!(%error, %org, "leaving the org's queue of turns failed");
                }
            });
        }
        let mut orgs = self.lock();
        if let Some(queue) = orgs.get_mut(&org) {
            queue
                .waiting
                .retain(|w| !(w.thread == thread && w.turn == turn));
            tell_positions(queue);
        }
    }
}

/// Drops `org`'s entry once nothing of it is held, waits or is granted.
fn forget_if_idle(orgs: &mut HashMap<OrgId, OrgQueue>, org: OrgId) {
    if orgs
        .get(&org)
        .is_some_and(|q| q.active == 0 && q.waiting.is_empty() && !q.granting)
    {
        orgs.remove(&org);
    }
}

/// Takes slots on the cluster's ledger for `org`'s waiting turns, front
/// first, until none waits: a slot taken goes to the front turn's actor
/// (or back, if that turn is gone); none free, the waiting turns are told
/// their places and the task sleeps until a local release or a second.
async fn granter(slots: Arc<OrgSlots>, ledger: Arc<dyn Leases>, org: OrgId) {
    loop {
        let next = {
            let mut orgs = slots.lock();
            let Some(queue) = orgs.get_mut(&org) else {
                return;
            };
            if queue.waiting.is_empty() {
                queue.granting = false;
                forget_if_idle(&mut orgs, org);
                None
            } else {
                let waiting: Vec<(ThreadId, u64)> =
                    queue.waiting.iter().map(|w| (w.thread, w.turn)).collect();
                Some((waiting, Arc::clone(&queue.wake)))
            }
        };
        // A turn leaves the ledger's queue by taking a slot, or by its
        // withdrawal (`OrgSlots::withdraw`).
        let Some((waiting, wake)) = next else {
            return;
        };
        let front = waiting[0];
        let asked = waiting.clone();
        let taken = ledger.take_org_slot(org, asked, slots.limit).await;
        let turns = match taken {
            Ok(turns) => turns,
            Err(error) => {
                tracing::warn!(%error, %org, "taking an org turn slot failed");
                let _ = tokio::time::timeout(LEDGER_POLL, wake.notified()).await;
                continue;
            }
        };
        if !turns.taken {
            if let Some(queue) = slots.lock().get(&org) {
                tell_ledger_positions(queue, &waiting, &turns.positions);
            }
            let _ = tokio::time::timeout(LEDGER_POLL, wake.notified()).await;
            continue;
        }
        let mut orgs = slots.lock();
        let Some(queue) = orgs.get_mut(&org) else {
            return;
        };
        let still_front = queue
            .waiting
            .front()
            .is_some_and(|w| (w.thread, w.turn) == front);
        let next = if still_front {
            queue.waiting.pop_front()
        } else {
            None
        };
        match next {
            Some(next) if next.grant.connected() => {
                next.log.org_position(next.turn, None);
                queue.active += 1;
                next.grant.do_send(OrgSlotGranted { turn: next.turn });
            }
            gone => {
                // The turn went while its slot was taken: give it back.
                if let Some(gone) = gone {
                    gone.log.org_position(gone.turn, None);
                }
                let ledger = Arc::clone(&ledger);
                tokio::spawn(async move { ledger.give_org_slot(org, front.0).await });
            }
        }
        // The turns behind are not told their places here: the next take
        // may grant the new front at once, and a `queued` frame would then
        // tell a turn it waits when it does not. A failed take tells them.
    }
}

/// Tells each waiting turn of `asked` still in `queue` its place in the
/// cluster's queue (`positions`, in `asked`'s order).
fn tell_ledger_positions(queue: &OrgQueue, asked: &[(ThreadId, u64)], positions: &[usize]) {
    for waiter in &queue.waiting {
        let place = asked
            .iter()
            .position(|&(thread, turn)| (thread, turn) == (waiter.thread, waiter.turn))
            .and_then(|at| positions.get(at));
        if let Some(place) = place {
            waiter.log.org_position(waiter.turn, Some(*place));
        }
    }
}

/// Tells each waiting turn's readers its place in the org's FIFO.
fn tell_positions(queue: &OrgQueue) {
    for (index, waiter) in queue.waiting.iter().enumerate() {
        waiter.log.org_position(waiter.turn, Some(index + 1));
    }
}
