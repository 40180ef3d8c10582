//! The traces of running turns, listed by the logs while they run, and the
//! W3C trace-id helpers.

use dashmap::DashMap;

use super::{MAX_RUNNING, Trace};
use crate::ids::TraceId;

/// The headers of running turns' traces, by id (at most [`MAX_RUNNING`]).
pub struct RunningTraces {
    pub(super) map: DashMap<TraceId, Trace>,
    cap: usize,
}

impl Default for RunningTraces {
    fn default() -> Self {
        Self::with_cap(MAX_RUNNING)
    }
}

impl RunningTraces {
    /// A registry holding at most `cap` traces.
    pub fn with_cap(cap: usize) -> Self {
        Self {
            map: DashMap::new(),
            cap,
        }
    }

    /// Lists `trace`; `false` when the registry is full.
    pub(super) fn insert(&self, trace: &Trace) -> bool {
        if self.map.len() >= self.cap {
            return false;
        }
        self.map.insert(trace.id, trace.clone());
        true
    }

    /// The running trace `id`.
    pub fn get(&self, id: TraceId) -> Option<Trace> {
        self.map.get(&id).map(|t| t.clone())
    }

    /// The running traces `keep` accepts.
    pub fn matching(&self, keep: impl Fn(&Trace) -> bool) -> Vec<Trace> {
        self.map
            .iter()
            .filter(|t| keep(t.value()))
            .map(|t| t.value().clone())
            .collect()
    }

    /// How many traces are listed.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// Lowercase hex of `bytes`.
pub fn hex_of(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// The trace id of a W3C `traceparent` header (`00-{32 hex}-{16 hex}-{2 hex}`),
/// if it is well formed and not all zeros.
pub fn traceparent_trace_id(header: &str) -> Option<String> {
    let mut parts = header.trim().split('-');
    let (version, trace, parent, flags) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let hex = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
    let valid = hex(version, 2)
        && version != "ff"
        && hex(trace, 32)
        && hex(parent, 16)
        && hex(flags, 2)
        && trace.bytes().any(|b| b != b'0')
        && parent.bytes().any(|b| b != b'0');
    valid.then(|| trace.to_ascii_lowercase())
}
