//! A reader of a thread's frame log: one client stream's position, woken
//! when the log changes (`streams.md`): the sender's own stream, a
//! reattach at a turn, or a watcher following every turn.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::sync::watch;

use super::{Frame, FrameId, FrameLog, LogState, Mode};
use crate::events::ThreadEvent;

/// One client's position in a thread's frame log.
pub struct FrameReader {
    log: Arc<FrameLog>,
    changes: watch::Receiver<u64>,
    mode: Mode,
    /// The last frame read (`n` 0: none of that turn yet).
    at: FrameId,
    /// The queue position last told (`queued` is sent when it changes).
    told_position: Option<(usize, Option<&'static str>)>,
    watcher: bool,
    /// Frames made for this reader alone, sent before anything else.
    pending: VecDeque<Arc<Frame>>,
    /// The stream ends once `pending` is sent.
    finishing: bool,
    /// The number of the last notice given (or seen before it came).
    pub(super) notices_seen: u64,
}

impl Drop for FrameReader {
    fn drop(&mut self) {
        self.log.readers.fetch_sub(1, Ordering::Relaxed);
        if self.watcher {
            self.log.watchers.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// What [`FrameReader::try_next`] found.
pub enum Ready {
    /// A frame to send.
    Frame(Arc<Frame>),
    /// Nothing yet: wait for the log to change.
    Wait,
    /// The stream is over.
    End,
}

/// What a reader found.
enum Step {
    Frame(Arc<Frame>),
    Wait,
    End,
}

fn own_frame(event: ThreadEvent) -> Arc<Frame> {
    Arc::new(Frame { id: None, event })
}

impl FrameReader {
    /// A reader of `log` at `at` (the log counts it as open).
    pub(super) fn new(log: Arc<FrameLog>, mode: Mode, at: FrameId, watcher: bool) -> Self {
        let changes = log.changed.subscribe();
        Self {
            log,
            changes,
            mode,
            at,
            told_position: None,
            watcher,
            pending: VecDeque::new(),
            finishing: false,
            notices_seen: 0,
        }
    }

    /// The turn this reader is in.
    pub fn turn(&self) -> u64 {
        self.at.turn
    }

    /// Whether the reader counts against the watcher cap.
    pub fn is_watcher(&self) -> bool {
        self.watcher
    }

    /// The next frame, waiting for it; `None` once the stream is over (after
    /// the turn's `done`, or a gap's ending).
    pub async fn next(&mut self) -> Option<Arc<Frame>> {
        loop {
            match self.try_next() {
                Ready::Frame(frame) => return Some(frame),
                Ready::End => return None,
                Ready::Wait => {
                    if self.changes.changed().await.is_err() {
                        self.finishing = true;
                    }
                }
            }
        }
    }

    /// The next frame if there is one now, without waiting (a writer takes
    /// every frame that is ready into one write).
    pub fn try_next(&mut self) -> Ready {
        loop {
            if let Some(frame) = self.pending.pop_front() {
                return Ready::Frame(frame);
            }
            if self.finishing {
                return Ready::End;
            }
            // Marks the current version seen before looking, so a change
            // made after the look wakes the wait in `next`.
            self.changes.borrow_and_update();
            let step = {
                let log = Arc::clone(&self.log);
                let state = log.lock();
                match self.mode {
                    Mode::Turn => self.step_turn(&state),
                    Mode::Follow => self.step_follow(&state),
                }
            };
            match step {
                // Passed over: the sender's own stream alone carries it.
                Step::Frame(frame) if self.watcher && frame.event.for_sender_only() => {}
                Step::Frame(frame) => return Ready::Frame(frame),
                Step::End => self.finishing = true,
                // The step queued frames of its own (a gap's ending).
                Step::Wait if self.finishing || !self.pending.is_empty() => {}
                Step::Wait => return Ready::Wait,
            }
        }
    }

    /// The reader fell out of the retained window: `error STREAM_GAP`, then
    /// `done {ok:false, gap:true}`, then the end.
    fn gap(&mut self) -> Step {
        let [error, mut done] = ThreadEvent::failure(
            crate::codes::STREAM_GAP,
            Some("this stream fell behind the frames kept; read the thread's messages".into()),
            String::new(),
        );
        if let ThreadEvent::Done(done) = &mut done {
            done.gap = Some(true);
        }
        self.pending.push_back(own_frame(error));
        self.pending.push_back(own_frame(done));
        self.finishing = true;
        Step::Wait
    }

    fn step_turn(&mut self, state: &LogState) -> Step {
        let turn = self.at.turn;
        if let Some(frames) = state.turn(turn) {
            if self.at.n + 1 < frames.first_n {
                return self.gap();
            }
            if let Some(frame) = frames.frame(self.at.n + 1) {
                self.at.n += 1;
                return Step::Frame(frame);
            }
            return if frames.finished_at.is_some() {
                Step::End
            } else {
                Step::Wait
            };
        }
        if let Some(index) = state.queued.iter().position(|t| *t == turn) {
            let place = match state.org_waiting.iter().find(|(t, _)| *t == turn) {
                Some((_, position)) => (*position, Some("org")),
                None => (index + 1, None),
            };
            if self.told_position != Some(place) {
                self.told_position = Some(place);
                return Step::Frame(Arc::new(Frame {
                    id: Some(FrameId { turn, n: 0 }),
                    event: ThreadEvent::Queued {
                        position: place.0,
                        reason: place.1,
                    },
                }));
            }
            return Step::Wait;
        }
        self.gap()
    }

    fn step_follow(&mut self, state: &LogState) -> Step {
        loop {
            if let Some(notice) = state.notices.next_for(self.notices_seen, self.at) {
                self.notices_seen = notice.number;
                if notice.last {
                    self.pending.push_back(Arc::clone(&notice.frame));
                    self.finishing = true;
                    return Step::Wait;
                }
                return Step::Frame(Arc::clone(&notice.frame));
            }
            let turn = self.at.turn;
            // Turns count from 1: `0.0` is `watching`'s id, and a watcher
            // resuming after it has missed nothing.
            if turn == 0 {
                self.at = FrameId { turn: 1, n: 0 };
                continue;
            }
            if let Some(frames) = state.turn(turn) {
                if frames.dropped {
                    self.at = FrameId {
                        turn: turn + 1,
                        n: 0,
                    };
                    continue;
                }
                if self.at.n + 1 < frames.first_n {
                    self.at = FrameId {
                        turn: turn + 1,
                        n: 0,
                    };
                    return Step::Frame(own_frame(ThreadEvent::TurnGap { turn }));
                }
                if let Some(frame) = frames.frame(self.at.n + 1) {
                    self.at.n += 1;
                    return Step::Frame(frame);
                }
                if frames.finished_at.is_some() {
                    self.at = FrameId {
                        turn: turn + 1,
                        n: 0,
                    };
                    continue;
                }
                return Step::Wait;
            }
            if turn > state.highest_begun || state.queued.contains(&turn) {
                return if state.closed { Step::End } else { Step::Wait };
            }
            // Turn `turn` is gone: say so once, then go on from the oldest
            // turn still retained after it (or the next one to begin).
            let next = state
                .turns
                .iter()
                .map(|t| t.turn)
                .filter(|t| *t > turn)
                .min()
                .unwrap_or(state.highest_begun + 1);
            self.at = FrameId { turn: next, n: 0 };
            return Step::Frame(own_frame(ThreadEvent::TurnGap { turn }));
        }
    }
}
