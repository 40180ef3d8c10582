//! Every error code of the API in one table (`streams.md` "Errors added"):
//! the HTTP status of a JSON error with that code (none for codes that only
//! end a stream), and whether a stream's `error` event may carry it. The
//! HTTP layer's `ApiError` and the turn's `error` frames both take their
//! codes from here.

/// One error code and where it is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErrorCode {
    pub code: &'static str,
    /// The status of a JSON error with this code; `None`: stream-only.
    pub status: Option<u16>,
    /// Whether a stream's `error` event may carry it.
    pub in_stream: bool,
}

macro_rules! error_codes {
    ($( $(#[$doc:meta])* $name:ident = $status:expr, $stream:literal; )+) => {
        $( $(#[$doc])* pub const $name: ErrorCode = ErrorCode {
            code: stringify!($name),
            status: $status,
            in_stream: $stream,
        }; )+
        /// Every code, in the order of the table.
        pub const ALL: &[ErrorCode] = &[ $( $name ),+ ];
    };
}

error_codes! {
    /// Not JSON, wrong types, a bad query parameter or header.
    BAD_REQUEST = Some(400), false;
    UNAUTHORIZED = Some(401), false;
    FORBIDDEN = Some(403), false;
    /// A visitor session asked of a paused publication (`publishing.md`).
    PUBLICATION_PAUSED = Some(403), false;
    /// Nothing by that ID; in a stream: the thread went while the send waited.
    NOT_FOUND = Some(404), true;
    METHOD_NOT_ALLOWED = Some(405), false;
    REQUEST_TIMEOUT = Some(408), false;
    /// A deleted agent; in a stream: it went while the send waited.
    CONFLICT = Some(409), true;
    THREAD_BUSY = Some(409), false;
    /// Before a reattach (409) or when a reader falls behind (stream).
    STREAM_GAP = Some(409), true;
    /// `If-Match` named a version that is no longer the object's.
    PRECONDITION_FAILED = Some(412), false;
    PAYLOAD_TOO_LARGE = Some(413), false;
    UNSUPPORTED_MEDIA_TYPE = Some(415), false;
    /// A value breaks a rule; in a stream: tool results no longer pending.
    VALIDATION_ERROR = Some(422), true;
    IDEMPOTENCY_KEY_REUSED = Some(422), false;
    RATE_LIMITED = Some(429), false;
    /// A publication's daily token budget is spent (`publishing.md` rule 7).
    BUDGET_EXHAUSTED = Some(429), false;
    THREAD_QUEUE_FULL = Some(429), false;
    /// A runner has `max_queued_runs` runs queued, paused or asking.
    RUNNER_QUEUE_FULL = Some(429), false;
    /// A paused run's budget limit still holds (a resume).
    BUDGET_EXCEEDED = Some(409), false;
    /// Before the stream (429) or for a queued turn whose org queue filled.
    ORG_QUEUE_FULL = Some(429), true;
    TOO_MANY_READERS = Some(429), false;
    HEADERS_TOO_LARGE = Some(431), false;
    INTERNAL = Some(500), true;
    /// A vendor or registry the request needs failed (a channel's vendor
    /// on create, the MCP registry on a later page; marketplace-channels.md).
    UPSTREAM_UNAVAILABLE = Some(502), false;
    STORE_UNAVAILABLE = Some(503), false;
    /// The route's records are not kept in PostgreSQL yet (a node on
    /// `CONFER_STORE` while kinds move there, `scale.md` §2).
    NOT_ON_THIS_STORE = Some(501), false;
    /// Between nodes: the forwarded request's epoch is not the shard's
    /// (`scale.md` §4); the entry node reloads and retries.
    NOT_OWNER = Some(421), false;
    /// The node lost the thread's shard during the turn: nothing more of
    /// it was stored (`scale.md` §3.4).
    NODE_LOST_LEASE = None, true;
    /// The node running the turn stopped; its answer was not stored.
    NODE_FAILED = None, true;
    /// No owner of the thread's shard answered within
    /// `CONFER_FORWARD_WAIT_SECS` (`Retry-After: 2`).
    OWNER_UNAVAILABLE = Some(503), false;
    SHUTTING_DOWN = Some(503), true;
    /// Too many knowledge searches wait (`knowledge.md`): come back in 1 s.
    SEARCH_BUSY = Some(503), false;
    /// No sandbox runtime can run a code session here (`computer.md` §6).
    SANDBOX_UNAVAILABLE = Some(503), false;
    /// A queued send dropped by `interrupt` or `stop {queued}`.
    CANCELLED = None, true;
    /// A code session's turn ran past its `turn_timeout_mins`
    /// (`computer.md` §6): stopped as by a cancel.
    TURN_TIMEOUT = None, true;
    /// A JSON run's answer did not match its schema after the repairs.
    OUTPUT_INVALID = None, true;
    /// A run interrupted by more restarts than it may be.
    INTERRUPTED = None, true;
    PROVIDER_AUTH = None, true;
    PROVIDER_RATE_LIMITED = None, true;
    PROVIDER_UNAVAILABLE = None, true;
    PROVIDER_TIMEOUT = None, true;
    MODEL_ERROR = None, true;
    /// The vendor refused the request for its length (`compaction.md`).
    CONTEXT_TOO_LONG = None, true;
}

/// The table's entry for `code`.
pub fn lookup(code: &str) -> Option<ErrorCode> {
    ALL.iter().copied().find(|c| c.code == code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_each_is_used_somewhere() {
        let mut seen = std::collections::HashSet::new();
        for code in ALL {
            assert!(seen.insert(code.code), "{} twice", code.code);
            assert!(
                code.status.is_some() || code.in_stream,
                "{} is used nowhere",
                code.code
            );
        }
        assert_eq!(lookup("STREAM_GAP"), Some(STREAM_GAP));
        assert_eq!(lookup("NOPE"), None);
    }
}
