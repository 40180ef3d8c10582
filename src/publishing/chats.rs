//! The public chats' shared state: the visitor keys, the limits and the
//! settings every visitor request reads (`publishing.md` "Visitors").

use confer_actors::{PublicationId, Runtime};
use dashmap::DashMap;
use tokio::sync::watch;

use super::client_ip::TrustedProxies;
use super::limits::{DEFAULT_CAP, PublicLimits};
use super::visitors::VisitorKeys;
use crate::settings::Settings;
use crate::store::Store;

/// Visitor token lifetimes the settings may choose, in seconds.
const TOKEN_TTL_SECS: std::ops::RangeInclusive<u64> = 60..=3600;

/// What every public chat request shares.
pub struct PublicChats {
    pub keys: VisitorKeys,
    /// Lifetime of a visitor token.
    pub token_ttl_secs: u64,
    pub limits: PublicLimits,
    pub proxies: TrustedProxies,
    /// Threads one publication may hold.
    pub max_threads: u64,
    /// The running public turns' budget reservations.
    pub reservations: super::budget::Reservations,
    /// What closes each publication's public streams.
    pub closers: StreamClosers,
    /// Publications by slug, for visitors' requests.
    pub slugs: super::slug_cache::SlugCache,
}

/// Closers kept before the idle ones (no stream left) are dropped.
const CLOSERS_BEFORE_PRUNING: usize = 1024;

/// One sender per publication with open public streams: dropping it closes
/// them all. Bounded: past `prune_at` entries, those without a stream left
/// are dropped before another is added.
pub struct StreamClosers {
    senders: DashMap<PublicationId, watch::Sender<()>>,
    prune_at: usize,
}

impl StreamClosers {
    /// Closers pruned past `prune_at` entries.
    pub fn new(prune_at: usize) -> Self {
        Self {
            senders: DashMap::new(),
            prune_at,
        }
    }

    /// What a public stream of `publication` waits on.
    pub fn subscribe(&self, publication: PublicationId) -> watch::Receiver<()> {
        if self.senders.len() >= self.prune_at {
            self.senders.retain(|_, closer| closer.receiver_count() > 0);
        }
        self.senders
            .entry(publication)
            .or_insert_with(|| watch::channel(()).0)
            .subscribe()
    }

    /// Closes every stream of `publication`.
    pub fn close(&self, publication: PublicationId) {
        self.senders.remove(&publication);
    }

    /// Publications with a closer.
    pub fn len(&self) -> usize {
        self.senders.len()
    }

    /// Whether no publication has one.
    pub fn is_empty(&self) -> bool {
        self.senders.is_empty()
    }
}

impl PublicChats {
    /// The state of a starting server: the instance key read (made at the
    /// first start), the store told the thread cap, the retention sweep
    /// started.
    pub async fn start(settings: &Settings, store: &Store) -> anyhow::Result<Self> {
        use anyhow::Context;
        // On PostgreSQL every node must sign alike with no row to share:
        // the key is derived from the secret key they share (a rotation
        // ends the visitors' tokens, which last an hour at most).
        let instance_key = match store.is_postgres() {
            true => store.derive_key(b"confer-visitor-instance"),
            false => store
                .write(|s| s.visitor_instance_key())
                .await
                .context("reading the visitor instance key")?,
        };
        let chats = Self::new(settings, &instance_key).map_err(anyhow::Error::msg)?;
        store.set_public_max_threads(settings.public_max_threads);
        super::retention::start(store.clone());
        Ok(chats)
    }

    /// The state for `settings`, with keys from `instance_key`; a setting
    /// out of its range is an error naming it.
    pub fn new(settings: &Settings, instance_key: &[u8; 32]) -> Result<Self, String> {
        if !TOKEN_TTL_SECS.contains(&settings.visitor_token_ttl_secs) {
            return Err(format!(
                "visitor_token_ttl_secs: must be 60-3600 (got {})",
                settings.visitor_token_ttl_secs
            ));
        }
        Ok(Self {
            keys: VisitorKeys::derive(instance_key),
            token_ttl_secs: settings.visitor_token_ttl_secs,
            limits: PublicLimits::new(
                settings.public_visitor_rps,
                settings.public_mints_per_ip_per_min,
                DEFAULT_CAP,
            ),
            proxies: TrustedProxies::parse(&settings.trusted_proxies)?,
            max_threads: settings.public_max_threads,
            reservations: super::budget::Reservations::default(),
            closers: StreamClosers::new(CLOSERS_BEFORE_PRUNING),
            slugs: super::slug_cache::SlugCache::new(super::slug_cache::CAPACITY),
        })
    }

    /// What a public stream of `publication` waits on: it ends when the
    /// publication's sessions do.
    pub fn closer(&self, publication: PublicationId) -> watch::Receiver<()> {
        self.closers.subscribe(publication)
    }

    /// Ends what `publication`'s sessions started (a pause, `revokeSessions`
    /// or a delete, `publishing.md` rule 6): its public streams close, and
    /// its turns stop as `/stop` stops them, their queued sends dropped.
    pub async fn end_sessions(&self, runtime: &Runtime, publication: PublicationId) {
        self.closers.close(publication);
        for thread in self.limits.running_threads(publication) {
            if let Err(error) = runtime.stop(thread, true).await {
                tracing::warn!(%error, %thread, "stopping a public turn failed");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[tokio::test]
    async fn closers_end_their_streams_and_stay_bounded() {
        let closers = StreamClosers::new(2);
        let (a, b) = (PublicationId::new(), PublicationId::new());
        let mut open = closers.subscribe(a);
        drop(closers.subscribe(b));
        assert_eq!(closers.len(), 2);
        // At the bound, b's (no stream left) goes before c's is added.
        let _c = closers.subscribe(PublicationId::new());
        assert_eq!(closers.len(), 2);
        closers.close(a);
        assert!(open.changed().await.is_err(), "the stream sees its end");
    }
}
