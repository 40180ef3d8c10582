//! [`CancelReason`]: why a running turn was stopped, and the `error` its
//! stream ends with for it.

/// Why a running turn was cancelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CancelReason {
    /// `POST .../stop`, or a send with `ifBusy: interrupt`.
    Stop,
    /// The server is shutting down and the grace time is over.
    Shutdown,
    /// The turn ran past the time its sender gave it (a code session's
    /// `turn_timeout_mins`): `error {code: "TURN_TIMEOUT"}`.
    TimedOut,
    /// The node lost its lease on the thread's shard (`scale.md` §3.2):
    /// `error {code: "NODE_LOST_LEASE"}`; nothing more of it is stored.
    LostLease,
}

impl CancelReason {
    /// The `error` a turn cancelled for this reason ends with, if any (a
    /// stop is no error).
    pub fn error(self) -> Option<(crate::codes::ErrorCode, &'static str)> {
        use crate::codes;
        match self {
            Self::Stop => None,
            Self::Shutdown => Some((
                codes::SHUTTING_DOWN,
                "the server is shutting down; send again when it is back",
            )),
            Self::TimedOut => Some((codes::TURN_TIMEOUT, "the turn ran past its time limit")),
            Self::LostLease => Some((
                codes::NODE_LOST_LEASE,
                "this node no longer holds the thread; the answer was not stored",
            )),
        }
    }
}
