//! Idempotent sends (`streams.md`): what identifies a repeated send, and
//! what is kept durably of the turn it started, so a retry during or after
//! the turn (also after a restart) is answered with that turn instead of a
//! new one.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::events::Usage;
use crate::ids::MessageId;

/// How long a key is kept.
pub const KEEP_FOR_HOURS: i64 = 24;

/// A send's `Idempotency-Key`, as the HTTP layer hashed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IdempotencyKey {
    /// Hash of the thread, the caller and the key: the record's identity.
    pub key: [u8; 32],
    /// Hash of the request (canonical body and effective sender).
    pub request: [u8; 32],
}

/// How the turn of a keyed send ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeKind {
    Ok,
    Stopped,
    Error,
    RequiresAction,
    Cancelled,
    /// The vendor compacted the context and paused (`compaction.md`).
    Paused,
}

/// The end of a keyed send's turn, kept to rebuild its `done`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TurnOutcome {
    pub kind: OutcomeKind,
    pub message_id: Option<MessageId>,
    /// The stored answer's position in the history (its content is read
    /// from there).
    pub answer_seq: Option<u64>,
    pub usage: Option<Usage>,
    pub error_code: Option<String>,
}

/// What is kept of a keyed send: written with its user message, completed
/// with its outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IdempotencyRecord {
    /// Hex of [`IdempotencyKey::request`].
    pub request: String,
    pub turn: u64,
    pub created_at: DateTime<Utc>,
    pub started_at: DateTime<Utc>,
    pub model: String,
    pub user_message_id: Option<MessageId>,
    pub outcome: Option<TurnOutcome>,
}

impl IdempotencyRecord {
    /// Whether the record is past its 24 hours (then it counts as absent).
    pub fn expired(&self, now: DateTime<Utc>) -> bool {
        now - self.created_at >= Duration::hours(KEEP_FOR_HOURS)
    }

    /// Whether `key`'s request is the one this record was made for.
    pub fn same_request(&self, key: &IdempotencyKey) -> bool {
        self.request == hex(&key.request)
    }
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut out, b| {
            let _ = write!(out, "{b:02x}");
            out
        })
}
