//! The hourly retention sweep of public chats' threads (`publishing.md`
//! rule 12; the index and the sweep itself are `store::retention`). The
//! first sweep runs at start, so a restart resumes where the last one was.

use std::time::Duration;

use chrono::Utc;

use crate::store::Store;
use crate::store::retention::SWEEP_BATCH;

/// How often the sweep runs.
const EVERY: Duration = Duration::from_secs(3600);

/// Starts the sweep on the current runtime; it ends with the runtime.
pub fn start(store: Store) {
    if store.is_postgres() {
        return; // the cluster's store sweep runs it (`store::pg::sweep`)
    }
    actix_web::rt::spawn(async move {
        let mut ticks = tokio::time::interval(EVERY);
        loop {
            ticks.tick().await;
            match store
                .write(|s| s.sweep_retention(Utc::now(), SWEEP_BATCH))
                .await
            {
                Ok(0) => {}
                Ok(deleted) => tracing::info!(deleted, "public chat retention sweep"),
                Err(error) => tracing::warn!(%error, "public chat retention sweep failed"),
            }
        }
    });
}
