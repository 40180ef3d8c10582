//! The PostgreSQL store's database (`scale.md` §1): the operator's
//! connection string, a pool of sessions set up for durable commits, the
//! versioned migrations, and the check that every node shares one secret
//! key.
//!
//! Records move here kind by kind (§2): [`PgStore`] holds those that have
//! (orgs and API keys, org tools, participants, plans, projects, scheduled
//! tasks, publications and the orgs' publishing settings, and the turn's:
//! agents, threads, history, turns, keyed sends, usage, traces).
//! Until every kind has, `serve` refuses `CONFER_STORE` rather than run on
//! sled behind the operator's back; what exists is exercised by the
//! store conformance suite against a real PostgreSQL.

use std::time::Duration;

use deadpool::managed::{self, Metrics, PoolError, RecycleError, RecycleResult};
use secrecy::ExposeSecret;

use crate::settings::Settings;
use crate::tools::integrations::connection::TlsSettings;
use crate::tools::integrations::connection::{self, CONNECT_TIMEOUT, PgConnection, Target, Tls};

mod access;
mod adopt;
pub mod agents;
mod analytics;
mod append;
mod attached;
mod blobs;
mod collections;
mod configs;
mod creation;
mod document_index;
mod document_records;
mod documents;
mod embeddings;
pub mod export;
pub mod import;
mod index_feed;
mod ingestion;
mod integrations;
pub mod limits;
mod marketplace;
mod marks;
pub mod mcps;
pub mod memories;
mod memory_purge;
pub mod meta;
pub mod migrate;
mod orgs;
mod participants;
mod plans;
mod projects;
mod publications;
pub mod purge;
pub mod records;
pub(crate) mod schedules;
mod skills;
pub mod statements;
pub mod sweep;
pub mod threads;
mod tools;
mod traces;
mod turn;

pub use collections::ClaimedCollection;
pub use embeddings::KIND as VECTORS_CACHE;
pub use integrations::KIND as INTEGRATIONS_CACHE;
pub use marks::TurnState;
pub use mcps::KIND as MCPS_CACHE;
pub use publications::KIND as PUBLICATIONS_CACHE;
pub use records::PgStore;
pub use statements::{Db, StoreSession, Tx};
pub use tools::KIND as TOOLS_CACHE;

/// The oldest PostgreSQL the store runs on (`server_version_num`).
pub const MIN_SERVER_VERSION: i32 = 140_000;

/// Set on every session: an acknowledged write is a committed, flushed
/// transaction, and no statement or open transaction holds a connection
/// (or a lock) for long.
const SESSION_SETUP: &str = "SET synchronous_commit = on; \
     SET statement_timeout = '10s'; \
     SET idle_in_transaction_session_timeout = '10s'";

/// How long a caller waits for one of the pool's sessions.
const SESSION_WAIT: Duration = Duration::from_secs(10);

/// A failure of the PostgreSQL store. Never carries the connection string
/// or a password: a driver error is reduced to its SQLSTATE.
#[derive(Debug, thiserror::Error)]
pub enum PgError {
    #[error("CONFER_STORE: {0}")]
    Settings(String),
    #[error("PostgreSQL: {0}")]
    Connect(String),
    #[error("PostgreSQL refused a statement (SQLSTATE {0})")]
    Statement(String),
    #[error("PostgreSQL: the connection failed during a statement")]
    Lost,
    #[error("schema migrations: {0}")]
    Migration(String),
    #[error("{0}")]
    Refused(String),
}

impl From<tokio_postgres::Error> for PgError {
    fn from(error: tokio_postgres::Error) -> Self {
        match error.as_db_error() {
            Some(db) => Self::Statement(db.code().code().to_owned()),
            None => Self::Lost,
        }
    }
}

/// The store's connection settings, read from `Settings`.
#[derive(Clone, Debug)]
pub struct PgSettings {
    pub target: Target,
    pub pool_size: usize,
}

impl PgSettings {
    /// `None` when `CONFER_STORE` is unset (the store is sled). The
    /// password may come from `CONFER_STORE_PASSWORD_FILE` instead of the
    /// string. A host other than loopback with TLS off is allowed, with a
    /// warning: the operator's network may be private.
    pub fn from_settings(settings: &Settings) -> Result<Option<Self>, PgError> {
        let Some(raw) = &settings.store else {
            return Ok(None);
        };
        let mut target =
            connection::parse_operator(raw.expose_secret()).map_err(PgError::Settings)?;
        if let Some(path) = &settings.store_password_file {
            let password = std::fs::read_to_string(path).map_err(|e| {
                PgError::Settings(format!("reading CONFER_STORE_PASSWORD_FILE: {}", e.kind()))
            })?;
            target.password = Some(password.trim_end_matches(['\r', '\n']).to_owned());
        }
        if target.tls == Tls::Off && !is_loopback(&target.host) {
            tracing::warn!(
                host = %target.host,
                "CONFER_STORE: a remote database without sslmode=require or stricter; \
                 callers' data crosses the network in clear"
            );
        }
        Ok(Some(Self {
            target,
            pool_size: settings.store_pool_size.max(1),
        }))
    }
}

fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Opens the store's sessions.
pub struct Sessions {
    target: Target,
    tls: TlsSettings,
}

impl Sessions {
    /// One connection set up as every store session is.
    async fn open(&self) -> Result<PgConnection, PgError> {
        let connection = connection::connect(&self.target, &self.tls)
            .await
            .map_err(PgError::Connect)?;
        connection.client.batch_execute(SESSION_SETUP).await?;
        Ok(connection)
    }
}

impl managed::Manager for Sessions {
    type Type = StoreSession;
    type Error = PgError;

    async fn create(&self) -> Result<StoreSession, PgError> {
        Ok(StoreSession::new(self.open().await?))
    }

    async fn recycle(&self, session: &mut StoreSession, _: &Metrics) -> RecycleResult<PgError> {
        if session.client.is_closed() {
            return Err(RecycleError::message("closed"));
        }
        Ok(())
    }
}

/// A session taken from the pool (back to it when dropped).
pub type Session = managed::Object<Sessions>;

/// The store's database: a bounded pool of sessions, and dedicated
/// connections for what must not share one (the migration lock, the
/// heartbeat).
#[derive(Clone)]
pub struct Database {
    pool: managed::Pool<Sessions>,
}

impl Database {
    /// The pool of `settings`; checks that the server answers and is new
    /// enough before anything else runs.
    pub async fn open(settings: &PgSettings, tls: TlsSettings) -> Result<Self, PgError> {
        let sessions = Sessions {
            target: settings.target.clone(),
            tls,
        };
        let pool = managed::Pool::builder(sessions)
            .max_size(settings.pool_size)
            .wait_timeout(Some(SESSION_WAIT))
            .create_timeout(Some(CONNECT_TIMEOUT))
            .recycle_timeout(Some(Duration::from_secs(2)))
            .runtime(deadpool::Runtime::Tokio1)
            .build()
            .map_err(|_| PgError::Connect("the pool could not be made".into()))?;
        let database = Self { pool };
        let session = database.session().await?;
        let version: i32 = session
            .client
            .query_one("SELECT current_setting('server_version_num')::int", &[])
            .await?
            .get(0);
        if version < MIN_SERVER_VERSION {
            return Err(PgError::Refused(format!(
                "PostgreSQL {} is older than 14, the oldest the store runs on",
                version / 10_000
            )));
        }
        Ok(database)
    }

    /// A session of the pool, within 10 s.
    pub async fn session(&self) -> Result<Session, PgError> {
        self.pool.get().await.map_err(|error| match error {
            PoolError::Backend(error) => error,
            PoolError::Timeout(_) => PgError::Connect("no session free in time".into()),
            _ => PgError::Connect("the pool closed".into()),
        })
    }

    /// A connection of its own, outside the pool: an advisory lock or a
    /// heartbeat must not wait behind the pool's work.
    pub async fn dedicated(&self) -> Result<PgConnection, PgError> {
        self.pool.manager().open().await
    }
}

#[cfg(test)]
mod tests;
