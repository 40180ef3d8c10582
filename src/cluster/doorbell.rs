//! A node's doorbell (`scale.md` §5): one connection of its own that
//! `LISTEN`s to the cluster's channels and wakes what waits on each, so
//! work another node queued starts here at once instead of at the next
//! poll. A notification carries nothing: what it wakes reads the tables,
//! and the 1 s polls still cover a notification lost. After a lost
//! connection it listens again and rings every bell, since what was
//! notified meanwhile is unknown.

use std::time::Duration;

use crate::store::pg::Database;

/// What a channel's notification wakes.
pub type Ring = Box<dyn Fn() + Send + Sync>;

/// Channels `jobs::enqueue` notifies: a stored job was queued.
pub const JOBS: &str = "confer_jobs";
/// The index feed's channel: a write logged index changes.
pub const CHANGES: &str = "confer_changes";

/// How often an idle connection is checked.
const CHECK_EVERY: Duration = Duration::from_secs(30);

/// How long a lost connection waits before it listens again.
const RECONNECT: Duration = Duration::from_secs(1);

/// Listens to `bells`' channels on a connection of `database`'s own,
/// until the runtime ends, ringing each channel's wakers as its
/// notifications come.
pub fn listen(database: Database, bells: Vec<(&'static str, Ring)>) {
    tokio::spawn(async move {
        loop {
            match listening(&database, &bells).await {
                Ok(()) => tracing::warn!("the doorbell's connection closed; listening again"),
                Err(error) => tracing::warn!(%error, "the doorbell could not listen; retrying"),
            }
            tokio::time::sleep(RECONNECT).await;
        }
    });
}

/// One connection's life: `LISTEN`, every bell rung once (what came
/// before it is unknown), then each notification's.
async fn listening(
    database: &Database,
    bells: &[(&'static str, Ring)],
) -> Result<(), crate::store::pg::PgError> {
    let mut connection = database.dedicated().await?;
    let mut channels: Vec<&str> = bells.iter().map(|(channel, _)| *channel).collect();
    channels.dedup();
    for channel in &channels {
        // Channel names are this module's constants, never input.
        connection
            .client
            .batch_execute(&format!("LISTEN {channel}"))
            .await?;
    }
    for (_, ring) in bells {
        ring();
    }
    let mut check = tokio::time::interval(CHECK_EVERY);
    check.tick().await;
    loop {
        tokio::select! {
            note = connection.notifications.recv() => {
                let Some(channel) = note else { return Ok(()) };
                for (_, ring) in bells.iter().filter(|(c, _)| *c == channel) {
                    ring();
                }
            }
            // A connection the network dropped silently says so only
            // when used.
            _ = check.tick() => {
                tokio::time::timeout(CHECK_EVERY, connection.client.batch_execute("SELECT 1"))
                    .await
                    .map_err(|_| crate::store::pg::PgError::Lost)??;
            }
        }
    }
}
