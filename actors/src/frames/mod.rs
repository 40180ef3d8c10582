//! The frame log of one thread and its readers (`streams.md`).
//!
//! A turn appends every frame it emits to its thread's [`FrameLog`];
//! appending takes a short lock and never waits for anyone. Every client
//! stream (the sender's own, a reattach, a watcher) is a [`FrameReader`]
//! with its own position, woken when the log changes, so a reader that
//! stops reading holds a position, not a buffer, and slows nothing.
//!
//! The log keeps the running turn's frames and the last finished turn's,
//! each up to `replay_bytes` (past it the oldest frames of that turn are
//! dropped; a reader behind them gets a gap), plus the queued turns'
//! numbers so their senders can be told their place. Nothing here is
//! durable: the stored messages are the durable record.

mod id;
mod reader;
mod retained;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::watch;

pub use id::FrameId;
pub use reader::{FrameReader, Ready};
use retained::{LogState, TurnFrames};

use crate::events::ThreadEvent;
use crate::ids::ThreadId;

/// An event with its id, shared by every reader.
#[derive(Debug, PartialEq)]
pub struct Frame {
    /// `None` for frames made for one reader (a gap's ending).
    pub id: Option<FrameId>,
    pub event: ThreadEvent,
}

/// Bytes a frame is counted as (its serialized size, roughly, plus overhead).
fn frame_bytes(event: &ThreadEvent) -> usize {
    let payload = match event {
        ThreadEvent::Token { delta } | ThreadEvent::Thinking { delta } => delta.len(),
        ThreadEvent::Done(done) => done.content.len(),
        ThreadEvent::Error { detail, .. } => detail.as_ref().map_or(0, String::len),
        ThreadEvent::ToolCall { tool } => tool.arguments.to_string().len() + tool.name.len(),
        ThreadEvent::ToolResult { result, .. } => result.to_string().len(),
        ThreadEvent::RequiresAction { tool_calls } => tool_calls
            .iter()
            .map(|c| c.arguments.to_string().len() + c.name.len())
            .sum(),
        _ => 0,
    };
    payload + 96
}

/// How much the log keeps.
#[derive(Clone, Copy, Debug)]
pub struct Retention {
    /// Bytes of frames kept per turn; past it the oldest are dropped.
    pub replay_bytes: usize,
    /// How long a finished turn's frames are kept after its `done`.
    pub keep_finished: Duration,
    /// Readers allowed at once besides the senders' own streams.
    pub max_watchers: usize,
}

impl Default for Retention {
    fn default() -> Self {
        Self {
            replay_bytes: 1024 * 1024,
            keep_finished: Duration::from_secs(300),
            max_watchers: 64,
        }
    }
}

/// A thread's frame log, shared by its actor, its turns and its readers.
pub struct FrameLog {
    thread: ThreadId,
    state: Mutex<LogState>,
    /// Bumped on every change; readers wait on it.
    changed: watch::Sender<u64>,
    retention: Retention,
    /// Readers open now, and how many of them are watchers or reattaches.
    readers: AtomicUsize,
    watchers: AtomicUsize,
    /// Bytes retained, mirrored for the actors' byte budget.
    bytes: AtomicUsize,
}

/// What a reader reads next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// One turn to its `done`.
    Turn,
    /// Every turn, until the client leaves.
    Follow,
}

/// Whether a reattach at a position can be served.
#[derive(Debug, PartialEq, Eq)]
pub enum Position {
    /// The frames after it are retained (or the turn is still to come).
    Available,
    /// The frames after it are gone.
    Gone,
    /// The turn has not been admitted yet.
    Future,
}

/// One reader too many on a thread (`max_watchers`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("too many readers on this thread")]
pub struct TooManyReaders;

/// The state of the thread's turns, as a watcher is first told.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TurnsNow {
    pub running: Option<u64>,
    pub last: Option<u64>,
}

impl FrameLog {
    /// An empty log for `thread`.
    pub fn new(thread: ThreadId, retention: Retention) -> Self {
        Self {
            thread,
            state: Mutex::new(LogState::default()),
            changed: watch::Sender::new(0),
            retention,
            readers: AtomicUsize::new(0),
            watchers: AtomicUsize::new(0),
            bytes: AtomicUsize::new(0),
        }
    }

    fn lock(&self) -> MutexGuard<'_, LogState> {
        // A panic while holding this lock leaves plain data behind.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn publish(&self, state: &LogState) {
        self.bytes.store(state.bytes, Ordering::Relaxed);
        self.changed.send_modify(|v| *v = v.wrapping_add(1));
    }

    /// The thread this log belongs to.
    pub fn thread(&self) -> ThreadId {
        self.thread
    }

    /// Bytes of frames retained.
    pub fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }

    /// Readers open now.
    pub fn readers(&self) -> usize {
        self.readers.load(Ordering::Relaxed)
    }

    /// Records an admitted turn as waiting to run.
    pub fn enqueue(&self, turn: u64) {
        let mut state = self.lock();
        state.queued.push_back(turn);
        self.publish(&state);
    }

    /// The running turn and the last finished one.
    pub fn turns_now(&self) -> TurnsNow {
        let state = self.lock();
        TurnsNow {
            running: state.running,
            last: state.last_finished,
        }
    }

    /// Sets (or, `None`, clears) `turn`'s place in its org's FIFO.
    pub fn org_position(&self, turn: u64, position: Option<usize>) {
        let mut state = self.lock();
        state.org_waiting.retain(|(t, _)| *t != turn);
        if let Some(position) = position {
            state.org_waiting.push((turn, position));
        }
        self.publish(&state);
    }

    /// The index `turn`'s next frame gets.
    pub fn next_index(&self, turn: u64) -> u64 {
        self.lock().turn(turn).map_or(0, |frames| frames.next_n)
    }

    /// Records that turns up to `turn` ran before this log (a restart, or
    /// another node): a watcher starts after them, and their frames are
    /// gone rather than to come.
    pub fn start_after(&self, turn: u64) {
        let mut state = self.lock();
        state.highest_begun = state.highest_begun.max(turn);
        self.publish(&state);
    }

    /// Starts `turn`: it leaves the queue and its frames begin.
    pub fn begin(&self, turn: u64) {
        let mut state = self.lock();
        state.queued.retain(|t| *t != turn);
        state.org_waiting.retain(|(t, _)| *t != turn);
        state.running = Some(turn);
        state.highest_begun = state.highest_begun.max(turn);
        state.trim(self.retention.keep_finished);
        state.turns.push_back(TurnFrames::new(turn, false));
        self.publish(&state);
    }

    /// Ends a queued `turn` that will not run: its sender reads `events`
    /// (an error and a `done`).
    pub fn drop_queued(&self, turn: u64, events: Vec<ThreadEvent>) {
        let mut state = self.lock();
        state.queued.retain(|t| *t != turn);
        state.org_waiting.retain(|(t, _)| *t != turn);
        state.highest_begun = state.highest_begun.max(turn);
        state.turns.push_back(TurnFrames::new(turn, true));
        for event in events {
            Self::push(&mut state, turn, event, self.retention.replay_bytes);
        }
        self.publish(&state);
    }

    /// Appends `event` to `turn`; never waits. A `done` ends the turn.
    pub fn append(&self, turn: u64, event: ThreadEvent) -> Option<FrameId> {
        let mut state = self.lock();
        let id = Self::push(&mut state, turn, event, self.retention.replay_bytes);
        self.publish(&state);
        id
    }

    fn push(state: &mut LogState, turn: u64, event: ThreadEvent, cap: usize) -> Option<FrameId> {
        let done = event.is_done();
        let bytes = frame_bytes(&event);
        let frames = state.turn_mut(turn)?;
        let id = FrameId {
            turn,
            n: frames.next_n,
        };
        frames.next_n += 1;
        frames.frames.push_back(Arc::new(Frame {
            id: Some(id),
            event,
        }));
        frames.bytes += bytes;
        let mut freed = 0;
        while frames.bytes > cap && frames.frames.len() > 1 {
            if let Some(old) = frames.frames.pop_front() {
                let size = frame_bytes(&old.event);
                frames.bytes -= size;
                freed += size;
                frames.first_n += 1;
            }
        }
        if done {
            freed += frames.pack();
            frames.finished_at = Some(Instant::now());
            if !frames.dropped {
                state.last_finished = Some(turn);
            }
            if state.running == Some(turn) {
                state.running = None;
            }
        }
        state.bytes = state.bytes + bytes - freed;
        Some(id)
    }

    /// Says no turn will begin any more: watchers waiting for one end.
    pub fn close(&self) {
        let mut state = self.lock();
        state.closed = true;
        self.publish(&state);
    }

    /// Drops finished turns past their retention (the actor calls this
    /// after `keep_finished`).
    pub fn expire(&self) {
        let mut state = self.lock();
        state.trim(self.retention.keep_finished);
        self.publish(&state);
    }

    /// Whether the frames of `turn` after `n` can be read.
    pub fn position(&self, at: FrameId) -> Position {
        let state = self.lock();
        if let Some(frames) = state.turn(at.turn) {
            if frames
                .finished_at
                .is_some_and(|t| t.elapsed() >= self.retention.keep_finished)
            {
                return Position::Gone;
            }
            return if at.n + 1 >= frames.first_n && at.n < frames.next_n {
                Position::Available
            } else if at.n >= frames.next_n {
                Position::Future
            } else {
                Position::Gone
            };
        }
        if state.queued.contains(&at.turn) && at.n == 0 {
            return Position::Available;
        }
        if at.turn > state.highest_begun && !state.queued.contains(&at.turn) {
            return Position::Future;
        }
        Position::Gone
    }

    /// A reader of `turn` from its first frame (the sender's own stream,
    /// which does not count against the watcher cap).
    pub fn read_turn(self: &Arc<Self>, turn: u64) -> FrameReader {
        self.reader(Mode::Turn, FrameId { turn, n: 0 }, false)
    }

    /// A reattach at `after` (or, `None`, the running turn from its start):
    /// `None` when no turn is running or too many readers are open.
    pub fn reattach(
        self: &Arc<Self>,
        after: Option<FrameId>,
    ) -> Result<Option<FrameReader>, TooManyReaders> {
        let at = match after {
            Some(at) => at,
            None => match self.lock().running {
                Some(turn) => FrameId { turn, n: 0 },
                None => return Ok(None),
            },
        };
        self.watcher(Mode::Turn, at).map(Some)
    }

    /// A watcher of every turn from `after` (or from the running turn's
    /// start, or the next turn's).
    pub fn follow(self: &Arc<Self>, after: Option<FrameId>) -> Result<FrameReader, TooManyReaders> {
        let at = match after {
            Some(at) => at,
            None => {
                let state = self.lock();
                match state.running {
                    Some(turn) => FrameId { turn, n: 0 },
                    None => FrameId {
                        turn: state.highest_begun + 1,
                        n: 0,
                    },
                }
            }
        };
        self.watcher(Mode::Follow, at)
    }

    fn watcher(self: &Arc<Self>, mode: Mode, at: FrameId) -> Result<FrameReader, TooManyReaders> {
        let counted = self
            .watchers
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                (n < self.retention.max_watchers).then_some(n + 1)
            });
        if counted.is_err() {
            return Err(TooManyReaders);
        }
        let mut reader = self.reader(mode, at, true);
        // A new follower has seen every notice posted before it came.
        reader.notices_seen = self.lock().notices.posted();
        Ok(reader)
    }

    fn reader(self: &Arc<Self>, mode: Mode, at: FrameId, watcher: bool) -> FrameReader {
        self.readers.fetch_add(1, Ordering::Relaxed);
        FrameReader::new(Arc::clone(self), mode, at, watcher)
    }
}

mod notices;
pub use notices::NOTICES_KEPT;

#[cfg(test)]
mod tests;
