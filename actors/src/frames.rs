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

use std::collections::VecDeque;
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::events::ThreadEvent;
use crate::ids::ThreadId;

/// A frame's id: the thread's turn number and the frame's index in the turn
/// (from 1; 0 for frames outside the log such as `queued`). Written `T.N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FrameId {
    pub turn: u64,
    pub n: u64,
}

impl fmt::Display for FrameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.turn, self.n)
    }
}

impl FromStr for FrameId {
    type Err = ();

    fn from_str(text: &str) -> Result<Self, ()> {
        let (turn, n) = text.split_once('.').ok_or(())?;
        let digits = |s: &str| -> Result<u64, ()> {
            if s.is_empty() || s.len() > 19 || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(());
            }
            s.parse().map_err(|_| ())
        };
        Ok(Self {
            turn: digits(turn)?,
            n: digits(n)?,
        })
    }
}

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
        ThreadEvent::Token { delta } => delta.len(),
        ThreadEvent::Done { content, .. } => content.len(),
        ThreadEvent::Error { detail, .. } => detail.as_ref().map_or(0, String::len),
        ThreadEvent::ToolCall { tool } => tool.arguments.to_string().len() + tool.name.len(),
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

/// The retained frames of one turn.
struct TurnFrames {
    turn: u64,
    frames: VecDeque<Arc<Frame>>,
    /// The index of `frames[0]` (frames before it were dropped).
    first_n: u64,
    /// The index the next frame gets.
    next_n: u64,
    bytes: usize,
    finished_at: Option<Instant>,
    /// Dropped before it ran (interrupt, stop of the queue, shutdown): it
    /// has no `meta`, and watchers skip it.
    dropped: bool,
}

impl TurnFrames {
    fn new(turn: u64, dropped: bool) -> Self {
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

    fn frame(&self, n: u64) -> Option<&Arc<Frame>> {
        let index = n.checked_sub(self.first_n)?;
        self.frames.get(usize::try_from(index).ok()?)
    }
}

#[derive(Default)]
struct LogState {
    /// Retained turns, oldest first.
    turns: VecDeque<TurnFrames>,
    /// Admitted turns waiting to run, in order.
    queued: VecDeque<u64>,
    /// Turns waiting for their org's capacity: their place in its FIFO.
    org_waiting: Vec<(u64, usize)>,
    /// The running turn, if any.
    running: Option<u64>,
    /// The last turn that finished (ran to its `done`).
    last_finished: Option<u64>,
    /// The highest turn number that began (ran, or was dropped).
    highest_begun: u64,
    bytes: usize,
    /// No turn will begin any more (shutdown): watchers end once they
    /// have read what there is.
    closed: bool,
}

impl LogState {
    fn turn(&self, turn: u64) -> Option<&TurnFrames> {
        self.turns.iter().find(|t| t.turn == turn)
    }

    fn turn_mut(&mut self, turn: u64) -> Option<&mut TurnFrames> {
        self.turns.iter_mut().find(|t| t.turn == turn)
    }

    /// Drops what is no longer retained: finished turns other than the last
    /// one, and any finished turn past `keep`.
    fn trim(&mut self, keep: Duration) {
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
        Ok(self.reader(mode, at, true))
    }

    fn reader(self: &Arc<Self>, mode: Mode, at: FrameId, watcher: bool) -> FrameReader {
        self.readers.fetch_add(1, Ordering::Relaxed);
        FrameReader {
            log: Arc::clone(self),
            changes: self.changed.subscribe(),
            mode,
            at,
            told_position: None,
            watcher,
            pending: VecDeque::new(),
            finishing: false,
        }
    }
}

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
        if let ThreadEvent::Done { gap, .. } = &mut done {
            *gap = Some(true);
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
                return Step::Frame(Arc::clone(frame));
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
            let turn = self.at.turn;
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
                    return Step::Frame(Arc::clone(frame));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn token(text: &str) -> ThreadEvent {
        ThreadEvent::Token { delta: text.into() }
    }

    fn done() -> ThreadEvent {
        ThreadEvent::Done {
            ok: true,
            message_id: None,
            content: String::new(),
            usage: None,
            stopped: None,
            requires_action: None,
            gap: None,
        }
    }

    fn log(replay_bytes: usize) -> Arc<FrameLog> {
        Arc::new(FrameLog::new(
            ThreadId::new(),
            Retention {
                replay_bytes,
                max_watchers: 2,
                ..Retention::default()
            },
        ))
    }

    #[test]
    fn frame_ids_read_and_write_as_turn_dot_index() {
        assert_eq!("7.12".parse(), Ok(FrameId { turn: 7, n: 12 }));
        assert_eq!(FrameId { turn: 3, n: 0 }.to_string(), "3.0");
        for bad in ["", "7", "7.", ".1", "a.1", "1.-1", "1.1.1", "+1.1"] {
            assert!(bad.parse::<FrameId>().is_err(), "{bad}");
        }
    }

    #[tokio::test]
    async fn a_reader_behind_the_window_gets_a_gap_and_its_end() {
        let log = log(2_000);
        log.enqueue(1);
        let mut slow = log.read_turn(1);
        log.begin(1);
        for n in 0..100 {
            log.append(1, token(&format!("piece {n}")));
        }
        log.append(1, done());
        assert!(log.bytes() <= 2_000, "{} bytes kept", log.bytes());
        let first = slow.next().await.unwrap();
        assert!(matches!(&first.event, ThreadEvent::Error { code, .. } if code == "STREAM_GAP"));
        let last = slow.next().await.unwrap();
        assert!(matches!(
            last.event,
            ThreadEvent::Done {
                gap: Some(true),
                ..
            }
        ));
        assert!(slow.next().await.is_none());
        // A reattach can tell beforehand.
        assert_eq!(log.position(FrameId { turn: 1, n: 2 }), Position::Gone);
        assert_eq!(
            log.position(FrameId { turn: 1, n: 100 }),
            Position::Available
        );
        assert_eq!(log.position(FrameId { turn: 1, n: 500 }), Position::Future);
        assert_eq!(log.position(FrameId { turn: 9, n: 1 }), Position::Future);
    }

    #[tokio::test]
    async fn watchers_are_capped_and_follow_skips_dropped_turns() {
        let log = log(1 << 20);
        let mut watcher = log.follow(None).unwrap();
        let _second = log.follow(None).unwrap();
        assert_eq!(log.follow(None).err(), Some(TooManyReaders));
        log.enqueue(1);
        log.enqueue(2);
        log.drop_queued(1, vec![done()]);
        log.begin(2);
        log.append(2, token("hi"));
        log.append(2, done());
        let ids: Vec<Option<FrameId>> = [watcher.next().await, watcher.next().await]
            .into_iter()
            .map(|f| f.unwrap().id)
            .collect();
        assert_eq!(
            ids,
            [
                Some(FrameId { turn: 2, n: 1 }),
                Some(FrameId { turn: 2, n: 2 })
            ]
        );
        drop(watcher);
        assert_eq!(log.readers(), 1);
        assert!(log.follow(None).is_ok(), "a slot came free");
    }
}
