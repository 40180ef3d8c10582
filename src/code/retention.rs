//! The hourly sweep of archived code sessions (`computer.md` §6 rule 6):
//! a session archived `CONFER_CODE_SESSION_RETENTION_DAYS` ago goes with
//! its thread (`store::code`). The first sweep runs at start.

use std::time::Duration;

use chrono::{TimeDelta, Utc};

use crate::store::Store;

/// How often the sweep runs.
const EVERY: Duration = Duration::from_secs(3600);
/// Sessions removed per sweep, so that one write burst stays short; the
/// rest go at the next sweep.
const BATCH: usize = 1_000;

/// Starts the sweep on the current runtime, keeping archived sessions
/// `days` (at least 1); it ends with the runtime.
pub fn start(store: Store, days: u32) {
    let keep = TimeDelta::days(i64::from(days.max(1)));
    actix_web::rt::spawn(async move {
        let mut ticks = tokio::time::interval(EVERY);
        loop {
            ticks.tick().await;
            let cutoff = Utc::now() - keep;
            match store
                .write(move |s| s.sweep_code_sessions(cutoff, BATCH))
                .await
            {
                Ok(0) => {}
                Ok(removed) => tracing::info!(removed, "archived code sessions purged"),
                Err(error) => tracing::warn!(%error, "the code session sweep failed"),
            }
        }
    });
}
