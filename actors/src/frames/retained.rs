//! What the log keeps: each retained turn's frames, the queue of admitted
//! turns, and the rule that drops finished turns.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::Frame;

/// The retained frames of one turn.
pub(super) struct TurnFrames {
    pub(super) turn: u64,
    pub(super) frames: VecDeque<Arc<Frame>>,
    /// The index of `frames[0]` (frames before it were dropped).
    pub(super) first_n: u64,
    /// The index the next frame gets.
    pub(super) next_n: u64,
    pub(super) bytes: usize,
    pub(super) finished_at: Option<Instant>,
    /// Dropped before it ran (interrupt, stop of the queue, shutdown): it
    /// has no `meta`, and watchers skip it.
    pub(super) dropped: bool,
}

impl TurnFrames {
    pub(super) fn new(turn: u64, dropped: bool) -> Self {
        Self {
            turn,
            frames: VecDeque::new(),
            first_n: 1,
            next_n: 1,
            bytes: 0,
            finished_at: None,
            dropped,
        }
    }

    pub(super) fn frame(&self, n: u64) -> Option<&Arc<Frame>> {
        let index = n.checked_sub(self.first_n)?;
        self.frames.get(usize::try_from(index).ok()?)
    }
}

#[derive(Default)]
pub(super) struct LogState {
    /// Retained turns, oldest first.
    pub(super) turns: VecDeque<TurnFrames>,
    /// Admitted turns waiting to run, in order.
    pub(super) queued: VecDeque<u64>,
    /// Turns waiting for their org's capacity: their place in its FIFO.
    pub(super) org_waiting: Vec<(u64, usize)>,
    /// The running turn, if any.
    pub(super) running: Option<u64>,
    /// The last turn that finished (ran to its `done`).
    pub(super) last_finished: Option<u64>,
    /// The highest turn number that began (ran, or was dropped).
    pub(super) highest_begun: u64,
    pub(super) bytes: usize,
    /// No turn will begin any more (shutdown): watchers end once they
    /// have read what there is.
    pub(super) closed: bool,
}

impl LogState {
    pub(super) fn turn(&self, turn: u64) -> Option<&TurnFrames> {
        self.turns.iter().find(|t| t.turn == turn)
    }

    pub(super) fn turn_mut(&mut self, turn: u64) -> Option<&mut TurnFrames> {
        self.turns.iter_mut().find(|t| t.turn == turn)
    }

    /// Drops what is no longer retained: finished turns other than the last
    /// one, and any finished turn past `keep`.
    pub(super) fn trim(&mut self, keep: Duration) {
        let last = self.last_finished;
        let running = self.running;
        let before = self.turns.len();
        let mut freed = 0;
        self.turns.retain(|t| {
            let kept = match t.finished_at {
                None => true,
                Some(at) if at.elapsed() >= keep => false,
                // A dropped turn stays briefly, for its sender to read.
                Some(at) if t.dropped => at.elapsed() < Duration::from_secs(60),
                Some(_) => Some(t.turn) == last || Some(t.turn) == running,
            };
            if !kept {
                freed += t.bytes;
            }
            kept
        });
        if self.turns.len() != before {
            self.bytes -= freed;
        }
    }
}
