//! The hourly run retention sweep (`runners.md` Runs rule 10; what it
//! removes is `store::runners::retention`). The first sweep runs at start.

use std::time::Duration;

use chrono::{TimeDelta, Utc};

use crate::store::Store;

/// How often the sweep runs.
const EVERY: Duration = Duration::from_secs(3600);
/// Runs (and deliveries) removed per runner per sweep, so that one write
/// burst stays short; the rest go at the next sweep.
const BATCH: usize = 10_000;

/// Starts the sweep on the current runtime, keeping runs `days` (at
/// least 1) after they end; it ends with the runtime.
pub fn start(store: Store, days: u32) {
    let keep = TimeDelta::days(i64::from(days.max(1)));
    actix_web::rt::spawn(async move {
        let mut ticks = tokio::time::interval(EVERY);
        loop {
            ticks.tick().await;
            let now = Utc::now();
            match store
                .write(move |s| s.sweep_runs(now, now - keep, BATCH))
                .await
            {
                Ok(swept) if swept == Default::default() => {}
                Ok(swept) => tracing::info!(
                    runs = swept.runs,
                    deliveries = swept.deliveries,
                    keys = swept.keys,
                    "run retention sweep"
                ),
                Err(error) => tracing::warn!(%error, "run retention sweep failed"),
            }
        }
    });
}
