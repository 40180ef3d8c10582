//! Each integration's connections: a `deadpool` pool of at most
//! [`MAX_CONNECTIONS`], whose connector opens the sealed connection string
//! and checks the address against the outbound policy at every connect;
//! waiting for a connection, opening one and checking an idle one are each
//! bounded. At most [`MAX_POOLS`] pools are kept (the least recently used
//! is closed past it).

use std::num::NonZeroUsize;
use std::sync::Weak;
use std::time::Duration;

use confer_actors::IntegrationId;
use deadpool::managed::{self, Metrics, PoolError, RecycleError, RecycleResult};
use lru::LruCache;

use super::connection::{self, CONNECT_TIMEOUT, PgConnection};
use super::{DbFailure, IntegrationHub, locked};
use crate::store::integrations::Integration;

/// Open connections per integration at most.
pub const MAX_CONNECTIONS: usize = 4;
/// Integrations with a pool at most; past it the least recently used pool
/// is closed.
pub const MAX_POOLS: usize = 256;
/// How long a call waits for one of its integration's connections.
pub const PERMIT_WAIT: Duration = Duration::from_secs(10);
/// How long checking an idle connection before its reuse may take.
const RECYCLE_TIMEOUT: Duration = Duration::from_secs(2);

/// Opens an integration's connections.
pub struct Connector {
    hub: Weak<IntegrationHub>,
    integration: Integration,
}

impl managed::Manager for Connector {
    type Type = PgConnection;
    type Error = DbFailure;

    async fn create(&self) -> Result<PgConnection, DbFailure> {
        let hub = self
            .hub
            .upgrade()
            .ok_or_else(|| DbFailure::Connect("shutting down".into()))?;
        let target = hub.target(&self.integration).await?;
        connection::connect(&target, &hub.tls)
            .await
            .map_err(DbFailure::Connect)
    }

    async fn recycle(
        &self,
        connection: &mut PgConnection,
        _: &Metrics,
    ) -> RecycleResult<DbFailure> {
        if connection.client.is_closed() {
            return Err(RecycleError::message("closed"));
        }
        Ok(())
    }
}

/// One integration's pool.
pub type Pool = managed::Pool<Connector>;
/// A connection taken from a pool (back to it when dropped; taken out of
/// it by [`managed::Object::take`]).
pub type Pooled = managed::Object<Connector>;

/// The pools, least recently used first out.
pub(super) struct Pools(LruCache<IntegrationId, Pool>);

impl Pools {
    pub(super) fn new() -> Self {
        Self(LruCache::new(
            NonZeroUsize::new(MAX_POOLS).unwrap_or(NonZeroUsize::MIN),
        ))
    }
}

impl IntegrationHub {
    /// `integration`'s pool, made if new.
    pub(super) fn pool(&self, integration: &Integration) -> Result<Pool, DbFailure> {
        let mut pools = locked(&self.pools);
        if let Some(pool) = pools.0.get(&integration.id) {
            return Ok(pool.clone());
        }
        let connector = Connector {
            hub: self.me.clone(),
            integration: integration.clone(),
        };
        let pool = Pool::builder(connector)
            .max_size(MAX_CONNECTIONS)
            .wait_timeout(Some(PERMIT_WAIT))
            .create_timeout(Some(CONNECT_TIMEOUT))
            .recycle_timeout(Some(RECYCLE_TIMEOUT))
            .runtime(deadpool::Runtime::Tokio1)
            .build()
            .map_err(|_| DbFailure::Connect("the pool could not be made".into()))?;
        if let Some((_, closed)) = pools.0.push(integration.id, pool.clone()) {
            closed.close();
        }
        Ok(pool)
    }

    /// After an integration was deleted: its pool closed.
    pub(super) fn drop_pool(&self, id: IntegrationId) {
        if let Some(pool) = locked(&self.pools).0.pop(&id) {
            pool.close();
        }
    }

    /// Integrations with a pool now.
    pub fn pool_count(&self) -> usize {
        locked(&self.pools).0.len()
    }

    /// A connection of `integration`'s pool, within [`PERMIT_WAIT`] (and
    /// [`CONNECT_TIMEOUT`] when one is opened).
    pub(super) async fn connection(&self, integration: &Integration) -> Result<Pooled, DbFailure> {
        self.pool(integration)?
            .get()
            .await
            .map_err(|error| match error {
                PoolError::Backend(failure) => failure,
                PoolError::Timeout(_) => DbFailure::Connect("no connection in time".into()),
                _ => DbFailure::Connect("the pool closed".into()),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outbound::{Outbound, OutboundPolicy};
    use crate::store::Store;
    use crate::tools::integrations::connection::TlsSettings;

    fn integration() -> Integration {
        let now = chrono::Utc::now();
        Integration {
            id: IntegrationId::new(),
            org_id: confer_actors::OrgId::new(),
            name: "db".into(),
            slug: "db".into(),
            connection: String::new(),
            tables: None,
            schema: Vec::new(),
            schema_read_at: now,
            created_at: now,
            updated_at: now,
        }
    }

    #[tokio::test]
    async fn the_pools_keep_at_most_their_bound() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let policy = OutboundPolicy::new("", None).unwrap();
        let outbound = Outbound::new(policy, None).unwrap();
        let hub = IntegrationHub::new(store, outbound, TlsSettings::new(None).unwrap());
        let first = integration();
        let kept = hub.pool(&first).unwrap();
        for _ in 1..MAX_POOLS {
            hub.pool(&integration()).unwrap();
        }
        assert_eq!(hub.pool_count(), MAX_POOLS);
        // Used again, the first is not the least recent any more.
        hub.pool(&first).unwrap();
        let evicted = hub.pool(&integration()).unwrap();
        assert_eq!(hub.pool_count(), MAX_POOLS);
        assert!(!kept.is_closed(), "the recent one stays");
        assert!(!evicted.is_closed());
        // Past the bound the least recent is closed, not leaked.
        let mut closed = 0;
        for _ in 0..MAX_POOLS {
            let pool = hub.pool(&integration()).unwrap();
            drop(pool);
        }
        if kept.is_closed() {
            closed += 1;
        }
        assert_eq!(closed, 1, "the first went once it was the least recent");
    }
}
