//! The cap on concurrent turns per org (`security.md`,
//! `CONFER_MAX_ACTIVE_TURNS_PER_ORG`): a turn takes one of its org's slots
//! to run; when none is free it waits in the org's FIFO, across threads, and
//! its stream shows `queued {position, reason: "org"}`. The FIFO holds at
//! most `max_waiting` turns (then 429 `ORG_QUEUE_FULL`). Slots are granted
//! in arrival order by messaging the waiting turn's actor.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use actix::prelude::*;

use crate::frames::FrameLog;
use crate::ids::{OrgId, ThreadId};

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
    active: usize,
    waiting: VecDeque<Waiter>,
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
}

impl OrgSlots {
    /// `limit` turns per org at once (0: unlimited), `max_waiting` queued.
    pub fn new(limit: usize, max_waiting: usize) -> Self {
        Self {
            limit,
            max_waiting,
            orgs: Mutex::new(HashMap::new()),
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
        self.lock()
            .get(&org)
            .is_some_and(|q| q.active >= self.limit && q.waiting.len() >= self.max_waiting)
    }

    /// Takes a slot for `turn` of `thread` (`Ok(true)`), or queues it
    /// (`Ok(false)`: `grant` is told when a slot is its), or refuses.
    pub fn acquire(
        &self,
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
        if queue.active < self.limit && queue.waiting.is_empty() {
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
        tell_positions(queue);
        Ok(false)
    }

    /// A turn of `org` that held a slot ended: the slot goes to the next
    /// waiting turn, if any.
    pub fn release(&self, org: OrgId) {
        if self.limit == 0 {
            return;
        }
        let mut orgs = self.lock();
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
        let mut orgs = self.lock();
        if let Some(queue) = orgs.get_mut(&org) {
            queue
                .waiting
                .retain(|w| !(w.thread == thread && w.turn == turn));
            tell_positions(queue);
        }
    }
}

/// Tells each waiting turn's readers its place in the org's FIFO.
fn tell_positions(queue: &OrgQueue) {
    for (index, waiter) in queue.waiting.iter().enumerate() {
        waiter.log.org_position(waiter.turn, Some(index + 1));
    }
}
