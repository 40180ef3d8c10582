//! Out-of-turn events for a thread's followers (`computer.md` §6.4: a code
//! session's `session_status` changed by a PATCH or an archive). Each is
//! sent live, without an id, so a reader's last id never moves back, and
//! only once the reader has read what the log held when it was posted (so
//! an archive's notice comes after the cancelled turn's `done`). The last
//! notice of a thread (its session archived) ends the followers' streams.
//! A log keeps the newest [`NOTICES_KEPT`]; a reader further behind misses
//! the older ones.

use std::collections::VecDeque;
use std::sync::Arc;

use super::{Frame, FrameId, FrameLog, LogState};
use crate::events::ThreadEvent;

/// Notices a log keeps for readers that have not reached them yet.
pub const NOTICES_KEPT: usize = 8;

/// One posted notice.
pub(super) struct Notice {
    /// 1 for the log's first notice, and so on.
    pub(super) number: u64,
    /// The last frame the log held when it was posted.
    pub(super) after: FrameId,
    pub(super) frame: Arc<Frame>,
    /// Followers' streams end after it.
    pub(super) last: bool,
}

/// A log's notices.
#[derive(Default)]
pub(super) struct Notices {
    kept: VecDeque<Notice>,
    posted: u64,
}

impl Notices {
    /// How many were ever posted: a new reader has seen them all.
    pub(super) fn posted(&self) -> u64 {
        self.posted
    }

    /// The first notice after number `seen` that a reader whose last frame
    /// is `at` may be given now.
    pub(super) fn next_for(&self, seen: u64, at: FrameId) -> Option<&Notice> {
        self.kept
            .iter()
            .find(|notice| notice.number > seen)
            .filter(|notice| at >= notice.after)
    }
}

impl LogState {
    /// Where a notice posted now goes: after the running turn's `done`
    /// (a notice is about what the turn's stop or end left), else after
    /// the last frame the log holds (with no turn retained, after every
    /// turn that began).
    fn position_now(&self) -> FrameId {
        if let Some(turn) = self.running {
            return FrameId { turn, n: u64::MAX };
        }
        match self.turns.iter().max_by_key(|t| t.turn) {
            Some(frames) if frames.turn >= self.highest_begun => FrameId {
                turn: frames.turn,
                n: frames.next_n.saturating_sub(1),
            },
            _ => FrameId {
                turn: self.highest_begun,
                n: u64::MAX,
            },
        }
    }
}

impl FrameLog {
    /// Posts `event` to the thread's followers; with `last`, their streams
    /// end after it.
    pub fn notice(&self, event: ThreadEvent, last: bool) {
        let mut state = self.lock();
        let after = state.position_now();
        let notices = &mut state.notices;
        notices.posted += 1;
        notices.kept.push_back(Notice {
            number: notices.posted,
            after,
            frame: Arc::new(Frame { id: None, event }),
            last,
        });
        while notices.kept.len() > NOTICES_KEPT {
            notices.kept.pop_front();
        }
        self.publish(&state);
    }
}
