//! [`Emitter`]: where a turn's frames go, and the `done` it holds back
//! until the thread's actor has taken the turn's end in.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::codes::ErrorCode;
use crate::events::ThreadEvent;
use crate::frames::FrameLog;

/// Where a turn's frames go: its thread's frame log, under its number.
///
/// The turn's `done` is held back until [`Emitter::release_done`]: the
/// thread's actor releases it once it has taken the turn's end in, so a
/// client that sends again on seeing `done` finds the thread idle and its
/// send is judged against the finished turn (a send that found the turn
/// still running was admitted unchecked and failed later in its stream).
#[derive(Clone)]
pub struct Emitter {
    log: Arc<FrameLog>,
    turn: u64,
    held: Arc<Mutex<Held>>,
}

/// What an emitter holds back: the turn's `done`, and an event that goes
/// just before it (a code session's `session_status idle`).
#[derive(Default)]
struct Held {
    done: Option<ThreadEvent>,
    before_done: Option<ThreadEvent>,
}

impl std::fmt::Debug for Emitter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Emitter")
            .field("turn", &self.turn)
            .finish_non_exhaustive()
    }
}

impl Emitter {
    /// An emitter of `turn` into `log`.
    pub fn new(log: Arc<FrameLog>, turn: u64) -> Self {
        Self {
            log,
            turn,
            held: Arc::default(),
        }
    }

    /// The turn it emits for.
    pub fn turn(&self) -> u64 {
        self.turn
    }

    /// Appends an event; never waits for a reader. A `done` is held until
    /// [`Emitter::release_done`].
    pub fn emit(&self, event: ThreadEvent) {
        if event.is_done() {
            self.held().done = Some(event);
        } else {
            self.log.append(self.turn, event);
        }
    }

    /// Appends the held `done`, if the turn emitted one; returns whether it
    /// had.
    pub fn release_done(&self) -> bool {
        let (done, before) = {
            let mut held = self.held();
            (held.done.take(), held.before_done.take())
        };
        let Some(done) = done else {
            return false;
        };
        if let Some(before) = before {
            self.log.append(self.turn, before);
        }
        self.log.append(self.turn, done);
        true
    }

    /// Sets the event appended just before the turn's `done`, however
    /// the turn ends.
    pub fn before_done(&self, event: ThreadEvent) {
        self.held().before_done = Some(event);
    }

    /// The index the turn's `done` will have once `ending` more frames
    /// (`done` among them) are emitted, the held event before it counted.
    pub fn done_index(&self, ending: u64) -> u64 {
        let before = u64::from(self.held().before_done.is_some());
        (self.log.next_index(self.turn) + before + ending).saturating_sub(1)
    }

    fn held(&self) -> MutexGuard<'_, Held> {
        // A panic while holding this lock leaves plain data behind.
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `error` then `done {ok:false}` with the content so far.
    pub fn fail(&self, code: ErrorCode, detail: impl Into<String>, content: String) {
        for event in ThreadEvent::failure(code, Some(detail.into()), content) {
            self.emit(event);
        }
    }
}
