//! `TurnTimings`: where one turn's time went, phase by phase. A finished turn
//! logs them at debug level under the target `confer::turn_timings`, so the
//! time to first token can be broken down on a live server
//! (`CONFER_LOG=info,confer::turn_timings=debug`) without a profiler.

use std::time::Instant;

use crate::ids::ThreadId;

/// The log target of the per-turn timing line.
pub const TARGET: &str = "confer::turn_timings";

/// Microseconds spent in each phase of a turn, in the order they happen.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TurnTimings {
    /// From the HTTP handler accepting the send to the turn starting: the
    /// handler's store reads, the actor's mailbox and any queued turn.
    pub before_turn_us: u64,
    /// Loading the thread, agent, credentials and (uncached) context.
    pub load_us: u64,
    /// Writing what the user sent (a sled transaction).
    pub user_append_us: u64,
    /// Waiting for that write to be on disk (a group-committed flush).
    pub user_flush_us: u64,
    /// Handing the `meta` event to the stream.
    pub meta_us: u64,
    /// Asking the credential resolver for the user's key (0 without one).
    pub key_us: u64,
    /// From calling the model to its first text (connect, request, the
    /// vendor's own delay); 0 when no text came.
    pub first_token_us: u64,
    /// From calling the model to the end of its stream.
    pub stream_us: u64,
    /// Writing the answer and usage record.
    pub answer_append_us: u64,
    /// Waiting for the answer to be on disk.
    pub answer_flush_us: u64,
}

impl TurnTimings {
    /// The fields of the log line, in turn order (for tools that read it).
    pub const FIELDS: [&'static str; 10] = [
        "before_turn_us",
        "load_us",
        "user_append_us",
        "user_flush_us",
        "meta_us",
        "key_us",
        "first_token_us",
        "stream_us",
        "answer_append_us",
        "answer_flush_us",
    ];

    /// Logs the timings of a finished turn (debug level, [`TARGET`]).
    pub fn log(&self, thread: ThreadId) {
        tracing::debug!(
            target: TARGET,
            %thread,
            before_turn_us = self.before_turn_us,
            load_us = self.load_us,
            user_append_us = self.user_append_us,
            user_flush_us = self.user_flush_us,
            meta_us = self.meta_us,
            key_us = self.key_us,
            first_token_us = self.first_token_us,
            stream_us = self.stream_us,
            answer_append_us = self.answer_append_us,
            answer_flush_us = self.answer_flush_us,
            "turn timings"
        );
    }
}

/// A stopwatch that hands out the time since its previous lap.
pub struct PhaseClock {
    last: Instant,
}

impl PhaseClock {
    /// A clock whose first lap counts from `since`.
    pub fn since(since: Instant) -> Self {
        Self { last: since }
    }

    /// Microseconds since the previous lap (or the start).
    pub fn lap(&mut self) -> u64 {
        let now = Instant::now();
        let elapsed = now.saturating_duration_since(self.last);
        self.last = now;
        u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX)
    }
}

/// Microseconds from `from` to `to` (0 if `to` is earlier).
pub fn micros_between(from: Instant, to: Instant) -> u64 {
    u64::try_from(to.saturating_duration_since(from).as_micros()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn laps_count_from_the_previous_lap() {
        let start = Instant::now() - Duration::from_millis(5);
        let mut clock = PhaseClock::since(start);
        let first = clock.lap();
        assert!(first >= 5_000, "first lap counts from `since`: {first}");
        let second = clock.lap();
        assert!(second < first, "second lap counts from the first: {second}");
    }

    #[test]
    fn the_field_list_names_every_field_in_order() {
        let debug = format!("{:?}", TurnTimings::default());
        let positions: Vec<usize> = TurnTimings::FIELDS
            .iter()
            .map(|f| {
                debug
                    .find(&format!("{f}: "))
                    .unwrap_or_else(|| panic!("{f} missing"))
            })
            .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{debug}");
        assert_eq!(debug.matches("_us: ").count(), TurnTimings::FIELDS.len());
    }

    #[test]
    fn a_reversed_interval_is_zero() {
        let now = Instant::now();
        assert_eq!(micros_between(now + Duration::from_millis(1), now), 0);
    }
}
