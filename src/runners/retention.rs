//! The hourly run retention sweep (`runners.md` Runs rule 10; what it
//! removes is `store::runners::retention`). The first sweep runs at start.

use chrono::TimeDelta;

use crate::store::Store;

/// Runs (and deliveries) removed per runner per sweep, so that one write
/// burst stays short; the rest go at the next sweep.
const BATCH: usize = 10_000;

/// Starts the sweep on the current runtime, keeping runs `days` (at
/// least 1) after they end; it ends with the runtime.
pub fn start(store: &Store, days: u32) {
    let keep = TimeDelta::days(i64::from(days.max(1)));
    store.sweep_hourly("run retention sweep", move |s, now| {
        s.sweep_runs(now, now - keep, BATCH)
    });
}
