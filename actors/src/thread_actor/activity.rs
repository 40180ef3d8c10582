//! What a thread actor holds and when it last did something, read by the
//! registry without going through the actor's mailbox (idle eviction and
//! the byte budget).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};

use chrono::Utc;

use crate::provider::{ContextMessage, ReasoningBlock};

/// When a thread actor last did something, and whether it is busy; read by
/// the registry without going through the actor's mailbox.
#[derive(Debug)]
pub struct Activity {
    last_active_ms: AtomicI64,
    busy: AtomicBool,
    /// Bytes the actor holds: its context cache and its queued sends.
    bytes: AtomicUsize,
    /// The sum of `bytes` over every live actor, shared with the registry
    /// (kept by delta, so checking the budget never walks the actors).
    total: Arc<AtomicUsize>,
}

impl Drop for Activity {
    fn drop(&mut self) {
        self.total
            .fetch_sub(*self.bytes.get_mut(), Ordering::Relaxed);
    }
}

impl Activity {
    /// The activity of a new actor, counted into `total`.
    pub fn new(total: Arc<AtomicUsize>) -> Self {
        Self {
            last_active_ms: AtomicI64::new(0),
            busy: AtomicBool::new(false),
            bytes: AtomicUsize::new(0),
            total,
        }
    }

    /// Sets the bytes this actor holds, keeping the total in step.
    pub(super) fn set_bytes(&self, bytes: usize) {
        let old = self.bytes.swap(bytes, Ordering::Relaxed);
        if bytes >= old {
            self.total.fetch_add(bytes - old, Ordering::Relaxed);
        } else {
            self.total.fetch_sub(old - bytes, Ordering::Relaxed);
        }
    }

    pub(super) fn touch(&self, busy: bool) {
        self.last_active_ms
            .store(Utc::now().timestamp_millis(), Ordering::Relaxed);
        self.busy.store(busy, Ordering::Relaxed);
    }

    /// Milliseconds since the epoch of the last activity.
    pub fn last_active_ms(&self) -> i64 {
        self.last_active_ms.load(Ordering::Relaxed)
    }

    /// Whether a turn is running or queued.
    pub fn is_busy(&self) -> bool {
        self.busy.load(Ordering::Relaxed)
    }

    /// Bytes the actor holds (context cache and queued sends), as last counted.
    pub fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }
}

/// The bytes a context cache holds (its text; the fixed overhead is small).
pub(super) fn context_bytes(history: &[ContextMessage]) -> usize {
    history
        .iter()
        .map(|m| {
            m.content.len()
                + m.tool_calls
                    .iter()
                    .map(|c| c.name.len() + c.id.len() + c.arguments.to_string().len())
                    .sum::<usize>()
                + m.reasoning
                    .iter()
                    .map(|b| match b {
                        ReasoningBlock::Thinking {
                            thinking,
                            signature,
                        } => thinking.len() + signature.len(),
                        ReasoningBlock::RedactedThinking { data } => data.len(),
                    })
                    .sum::<usize>()
                + 64
        })
        .sum()
}
