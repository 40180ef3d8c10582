//! The hourly sweep of archived code sessions (`computer.md` §6 rule 6):
//! a session archived `CONFER_CODE_SESSION_RETENTION_DAYS` ago goes with
//! its thread (`store::code`). The first sweep runs at start.

use chrono::TimeDelta;

use crate::store::Store;

/// Sessions removed per sweep, so that one write burst stays short; the
/// rest go at the next sweep.
const BATCH: usize = 1_000;

/// Starts the sweep on the current runtime, keeping archived sessions
/// `days` (at least 1); it ends with the runtime.
pub fn start(store: &Store, days: u32) {
    let keep = TimeDelta::days(i64::from(days.max(1)));
    store.sweep_hourly("archived code sessions purged", move |s, now| {
        s.sweep_code_sessions(now - keep, BATCH)
    });
}
