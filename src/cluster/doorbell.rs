//! A node's doorbell (`scale.md` §5): one connection of its own that
//! `LISTEN`s to the cluster's channels and wakes what waits on each, so
//! work another node queued or freed starts here at once instead of at
//! the next poll. A notification carries nothing: what it wakes reads the
//! tables, and the 1 s polls still cover a notification lost. After a
//! lost connection it listens again and rings every bell, since what was
//! notified meanwhile is unknown.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::task::JoinHandle;

use crate::store::pg::{Database, PgError};

/// What a channel's notification wakes.
pub type Ring = Box<dyn Fn() + Send + Sync>;

/// Notified by every queued job (`jobs::enqueue`).
pub const JOBS: &str = "confer_jobs";
/// Notified by every index change, at commit (the index feed).
pub const CHANGES: &str = "confer_changes";
/// Notified when a node gives an org's turn slot back.
pub const ORG_SLOTS: &str = "confer_org_slots";

/// The channels a node listens to.
const CHANNELS: [&str; 3] = [JOBS, CHANGES, ORG_SLOTS];

/// How often an idle connection is checked.
const CHECK_EVERY: Duration = Duration::from_secs(30);

/// How long a lost connection waits before it listens again.
const RECONNECT: Duration = Duration::from_secs(1);

/// The bells of a node's services, and the task that rings them.
pub struct Doorbell {
    /// One per service and channel, added as the services start (a fixed,
    /// small set).
    bells: Mutex<Vec<(&'static str, Ring)>>,
    listener: Mutex<Option<JoinHandle<()>>>,
}

impl Drop for Doorbell {
    fn drop(&mut self) {
        if let Some(listener) = self.take_listener() {
            listener.abort();
        }
    }
}

impl Doorbell {
    /// Listens on a connection of `database`'s own until dropped.
    pub fn start(database: Database) -> Arc<Self> {
        let doorbell = Arc::new(Self {
            bells: Mutex::new(Vec::new()),
            listener: Mutex::new(None),
        });
        let weak = Arc::downgrade(&doorbell);
        let listener = tokio::spawn(async move {
            loop {
                match listening(&database, &weak).await {
                    Ok(()) => tracing::warn!("the doorbell's connection closed; listening again"),
                    Err(error) => tracing::warn!(%error, "the doorbell could not listen; retrying"),
                }
                if weak.strong_count() == 0 {
                    return;
                }
                tokio::time::sleep(RECONNECT).await;
            }
        });
        *doorbell
            .listener
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(listener);
        doorbell
    }

    /// Rings `ring` on each notification of `channel` (one of this
    /// module's channels), and once now.
    pub fn on(&self, channel: &'static str, ring: Ring) {
        ring();
        self.lock().push((channel, ring));
    }

    /// Rings the bells of `channel` (of every channel: `None`).
    fn ring(&self, channel: Option<&str>) {
        for (_, ring) in self
            .lock()
            .iter()
            .filter(|(c, _)| channel.is_none_or(|wanted| *c == wanted))
        {
            ring();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(&'static str, Ring)>> {
        // A list of bells; a panicking ring leaves it usable.
        self.bells.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn take_listener(&self) -> Option<JoinHandle<()>> {
        self.listener
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

/// One connection's life: `LISTEN`, every bell rung once (what came
/// before it is unknown), then each notification's bells; `Ok` when the
/// connection closed, or the doorbell is gone.
async fn listening(
    database: &Database,
    doorbell: &std::sync::Weak<Doorbell>,
) -> Result<(), PgError> {
    let mut connection = database.dedicated().await?;
    for channel in CHANNELS {
        connection
            .client
            .batch_execute(&format!("LISTEN {channel}"))
            .await?;
    }
    let ring = |channel: Option<&str>| match doorbell.upgrade() {
        Some(doorbell) => {
            doorbell.ring(channel);
            true
        }
        None => false,
    };
    if !ring(None) {
        return Ok(());
    }
    let mut check = tokio::time::interval(CHECK_EVERY);
    check.tick().await;
    loop {
        tokio::select! {
            note = connection.notifications.recv() => {
                let Some(channel) = note else { return Ok(()) };
                if !ring(Some(&channel)) {
                    return Ok(());
                }
            }
            // A connection the network dropped silently says so only
            // when used.
            _ = check.tick() => {
                tokio::time::timeout(CHECK_EVERY, connection.client.batch_execute("SELECT 1"))
                    .await
                    .map_err(|_| PgError::Lost)??;
            }
        }
    }
}
