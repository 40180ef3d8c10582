//! What the log keeps: each retained turn's frames, the queue of admitted
//! turns, and the rule that drops finished turns.
//!
//! A finished turn's `token` frames are packed: their text is the end of its
//! `done` content (the deltas concatenate to it), so they are kept as where
//! each ends in that text, 4 bytes a token instead of a frame each (about
//! 160), and made again when a reattach reads them.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Frame, FrameId, frame_bytes};
use crate::events::ThreadEvent;

/// Bytes a packed token is counted as.
const PACKED_TOKEN_BYTES: usize = 4;

/// A finished turn's token frames, as offsets into its `done` content.
pub(super) struct PackedTokens {
    /// Where the tokens were among the turn's frames (index into `frames`).
    at: usize,
    /// Where the first token starts in the content.
    start: usize,
    /// Where each token ends in the content.
    ends: Vec<u32>,
}

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
    /// The token frames, once the turn finished (they left `frames`).
    packed: Option<PackedTokens>,
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
            packed: None,
        }
    }

    /// Frame `n` of the turn, if it is retained.
    pub(super) fn frame(&self, n: u64) -> Option<Arc<Frame>> {
        let index = usize::try_from(n.checked_sub(self.first_n)?).ok()?;
        let Some(packed) = &self.packed else {
            return self.frames.get(index).cloned();
        };
        if index < packed.at {
            return self.frames.get(index).cloned();
        }
        let token = index - packed.at;
        if token >= packed.ends.len() {
            return self.frames.get(index - packed.ends.len()).cloned();
        }
        let content = self.content()?;
        let from = match token {
            0 => packed.start,
            i => packed.ends[i - 1] as usize,
        };
        let delta = content.get(from..packed.ends[token] as usize)?;
        Some(Arc::new(Frame {
            id: Some(FrameId { turn: self.turn, n }),
            event: ThreadEvent::Token {
                delta: delta.to_owned(),
            },
        }))
    }

    /// The content of the turn's `done` (its last frame), once finished.
    fn content(&self) -> Option<&str> {
        match &self.frames.back()?.event {
            ThreadEvent::Done(done) => Some(&done.content),
            _ => None,
        }
    }

    /// Packs the token frames of the finished turn; returns the bytes it
    /// no longer counts. Leaves them as they are unless they are one run
    /// whose text is the end of the `done` content (always so, as the turn
    /// writes them).
    pub(super) fn pack(&mut self) -> usize {
        let is_token = |f: &Arc<Frame>| matches!(f.event, ThreadEvent::Token { .. });
        let Some(at) = self.frames.iter().position(is_token) else {
            return 0;
        };
        let count = self
            .frames
            .iter()
            .skip(at)
            .take_while(|f| is_token(f))
            .count();
        if self.frames.iter().skip(at + count).any(is_token) {
            return 0;
        }
        let Some(content) = self.content() else {
            return 0;
        };
        let deltas = || {
            self.frames
                .iter()
                .skip(at)
                .take(count)
                .filter_map(|f| match &f.event {
                    ThreadEvent::Token { delta } => Some(delta.as_str()),
                    _ => None,
                })
        };
        let total: usize = deltas().map(str::len).sum();
        let Some(start) = content.len().checked_sub(total) else {
            return 0;
        };
        if u32::try_from(content.len()).is_err() {
            return 0;
        }
        let mut ends = Vec::with_capacity(count);
        let mut end = start;
        for delta in deltas() {
            if content.get(end..end + delta.len()) != Some(delta) {
                return 0;
            }
            end += delta.len();
            // The content's length fits in u32 (checked above).
            ends.push(end as u32);
        }
        let counted: usize = self
            .frames
            .iter()
            .skip(at)
            .take(count)
            .map(|f| frame_bytes(&f.event))
            .sum();
        self.frames.drain(at..at + count);
        self.packed = Some(PackedTokens { at, start, ends });
        let kept = count * PACKED_TOKEN_BYTES;
        self.bytes = self.bytes + kept - counted;
        counted - kept
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
    /// Out-of-turn events for followers.
    pub(super) notices: super::notices::Notices,
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
