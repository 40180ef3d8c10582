//! Database integrations (`tools.md` §7): an org's PostgreSQL databases,
//! whose tables an agent reads through `query_{table}` and `count_{table}`
//! tools built from the live schema. Every statement runs in a read-only
//! transaction with a 5 s statement timeout and is rolled back, and every
//! wait has a deadline on Confer's side: for a connection of the pool, for
//! its opening, for each statement, and [`CALL_DEADLINE`] for a whole call.
//! The connection rules are in `connection`, the pools in `pool`, the
//! statements' text in `query` and their running in `calls`.

mod calls;
pub mod connection;
pub mod pool;
pub mod query;

use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use chrono::Utc;
use confer_actors::tools::{OfferedFuture, ServerTools, ToolOutput, ToolScope};
use confer_actors::{AgentId, IntegrationId, OrgId, ToolCall, ToolDefinition};
use secrecy::ExposeSecret;

use self::connection::{Target, TlsSettings};
use crate::outbound::Outbound;
use crate::store::Store;
use crate::store::integrations::{Integration, OrgIntegrations, Table};
use crate::store::mcps::allowed_by;
use crate::tools::mcp::results::fit;
use crate::tools::org_cache::OrgCache;

pub use self::calls::QUERY_DEADLINE;
pub use self::pool::{MAX_CONNECTIONS, MAX_POOLS};

/// The longest a call of an integration's tool takes, from the wait for a
/// connection to its last row.
pub const CALL_DEADLINE: std::time::Duration = std::time::Duration::from_secs(60);
/// A turn starting this long after the schema was read asks for a new read
/// (in the background).
pub const SCHEMA_TTL: chrono::TimeDelta = chrono::TimeDelta::minutes(10);
/// Why a database call failed, as the model or the admin reads it.
#[derive(Debug)]
pub enum DbFailure {
    /// Could not connect (the reason names no secret).
    Connect(String),
    /// The database answered an error (its SQLSTATE).
    Database(String),
}

impl std::fmt::Display for DbFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Connect(why) => f.write_str(why),
            Self::Database(state) => write!(f, "SQLSTATE {state}"),
        }
    }
}

impl DbFailure {
    fn of(error: &tokio_postgres::Error) -> Self {
        match error.as_db_error() {
            Some(db) => Self::Database(db.code().code().to_owned()),
            None => Self::Connect("the connection failed".into()),
        }
    }

    /// The error result a model reads.
    fn output(&self) -> ToolOutput {
        match self {
            Self::Connect(_) => ToolOutput::error("database unavailable"),
            Self::Database(state) => ToolOutput::error(format!("database error: SQLSTATE {state}")),
        }
    }
}

/// One of the tools of an agent's integrations.
pub struct OfferedTable<'a> {
    pub integration: &'a Integration,
    pub table: &'a Table,
    /// `count` or `query`.
    pub count: bool,
    pub definition: ToolDefinition,
}

/// The tools of `agent`'s integrations, attachment by attachment: per
/// exposed table `query_{table}` and `count_{table}`, prefixed `{slug}__`
/// when an earlier attachment already yields that name.
pub fn agent_tables(data: &OrgIntegrations, agent: AgentId) -> Vec<OfferedTable<'_>> {
    let mut offered: Vec<OfferedTable<'_>> = Vec::new();
    for (_, attachment) in data.attachments.iter().filter(|(a, _)| *a == agent) {
        let Some(integration) = data.integrations.iter().find(|i| i.id == attachment.target) else {
            continue;
        };
        for table in &integration.schema {
            if !allowed_by(attachment.allowed.as_deref(), &table.name) {
                continue;
            }
            let (query, count) = query::definitions(table);
            for (verb, parameters, is_count) in [("query", query, false), ("count", count, true)] {
                let plain = fit(&format!("{verb}_{}", table.name));
                let name = if offered.iter().any(|o| o.definition.name == plain) {
                    fit(&format!("{}__{verb}_{}", integration.slug, table.name))
                } else {
                    plain
                };
                let description = if is_count {
                    format!(
                        "Counts the rows of table `{}` ({}) that meet the filters.",
                        table.name, integration.name
                    )
                } else {
                    format!(
                        "Reads rows of table `{}` ({}): filters, columns, order, limit (at most 200) and offset.",
                        table.name, integration.name
                    )
                };
                offered.push(OfferedTable {
                    integration,
                    table,
                    count: is_count,
                    definition: ToolDefinition {
                        name,
                        description: Some(description),
                        parameters,
                    },
                });
            }
        }
    }
    offered
}

/// Confer's side of its integrations: each org's integrations for turns,
/// the connection pools and the schema reads.
pub struct IntegrationHub {
    store: Store,
    outbound: Outbound,
    pub(super) tls: TlsSettings,
    orgs: OrgCache<OrgIntegrations>,
    pools: Mutex<pool::Pools>,
    /// Integrations whose schema is being read now.
    reading: Mutex<std::collections::HashSet<IntegrationId>>,
    me: Weak<IntegrationHub>,
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding one of these leaves plain data behind.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl IntegrationHub {
    /// A hub reading integrations from `store`, connecting by `outbound`'s
    /// policy.
    pub fn new(store: Store, outbound: Outbound, tls: TlsSettings) -> Arc<Self> {
        Arc::new_cyclic(|me| Self {
            store,
            outbound,
            tls,
            orgs: OrgCache::default(),
            pools: Mutex::new(pool::Pools::new()),
            reading: Mutex::default(),
            me: me.clone(),
        })
    }

    /// Checks a connection string (the 422 of a create names the rule).
    pub fn check(&self, raw: &str) -> Result<Target, String> {
        connection::parse(raw, self.outbound.policy())
    }

    /// The org's integrations and attachments (from memory when kept).
    pub async fn org(&self, org: OrgId) -> Option<Arc<OrgIntegrations>> {
        if let Some(kept) = self.orgs.get(org) {
            return Some(kept);
        }
        let generation = self.orgs.generation();
        match self.store.integrations().org_integrations(org).await {
            Ok(read) => {
                let read = Arc::new(read);
                self.orgs.put(org, Arc::clone(&read), generation);
                Some(read)
            }
            Err(error) => {
                tracing::error!(%error, "reading the org's integrations failed; none offered");
                None
            }
        }
    }

    /// After a write to the org's integrations or attachments.
    pub fn forget(&self, org: OrgId) {
        self.orgs.forget(org);
    }

    /// After an integration was deleted: its connections closed.
    pub fn deleted(&self, org: OrgId, id: IntegrationId) {
        self.drop_pool(id);
        self.forget(org);
    }

    /// Reads again, in the background, the schemas of `agent`'s
    /// integrations read more than [`SCHEMA_TTL`] ago.
    pub fn refresh_stale(&self, data: &OrgIntegrations, agent: AgentId) {
        let stale_before = Utc::now() - SCHEMA_TTL;
        for (integration, _) in data.of_agent(agent) {
            if integration.schema_read_at >= stale_before {
                continue;
            }
            if !locked(&self.reading).insert(integration.id) {
                continue;
            }
            let (Some(hub), Ok(runtime)) =
                (self.me.upgrade(), tokio::runtime::Handle::try_current())
            else {
                locked(&self.reading).remove(&integration.id);
                continue;
            };
            let integration = integration.clone();
            runtime.spawn(async move {
                hub.reread(&integration).await;
                locked(&hub.reading).remove(&integration.id);
            });
        }
    }

    async fn reread(&self, integration: &Integration) {
        let Ok(target) = self.target(integration).await else {
            return;
        };
        match self
            .read_schema(&target, integration.tables.as_deref())
            .await
        {
            Ok(schema) => {
                let (org, id) = (integration.org_id, integration.id);
                if let Err(error) = self
                    .store
                    .integrations()
                    .record_integration_schema(org, id, schema)
                    .await
                {
                    tracing::error!(%error, "recording an integration's schema failed");
                }
                self.forget(org);
            }
            Err(error) => {
                tracing::warn!(integration = %integration.id, %error, "an integration's schema could not be read");
            }
        }
    }

    pub(super) async fn target(&self, integration: &Integration) -> Result<Target, DbFailure> {
        let key = self.store.secrets();
        let raw = crate::store::integrations::connection_of(&key, integration)
            .map_err(|_| DbFailure::Connect("the connection string could not be opened".into()))?;
        // Checked again at each connection: the allow-list may have changed.
        self.check(raw.expose_secret()).map_err(DbFailure::Connect)
    }
}

/// Why a schema read failed.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    #[error("cannot connect: {0}")]
    Connect(String),
    #[error("`{0}` is not a table or view of schema public")]
    UnknownTable(String),
}

/// Offers and runs the tools of a turn's agent's integrations.
#[derive(Clone)]
pub struct IntegrationTools {
    hub: Arc<IntegrationHub>,
}

impl IntegrationTools {
    /// The executor of `hub`'s integrations.
    pub fn new(hub: Arc<IntegrationHub>) -> Self {
        Self { hub }
    }

    /// The tools a turn may offer.
    pub fn offered(&self, scope: &ToolScope) -> OfferedFuture {
        let (hub, org, agent) = (Arc::clone(&self.hub), scope.org, scope.agent);
        Box::pin(async move {
            let Some(data) = hub.org(org).await else {
                return ServerTools::default();
            };
            hub.refresh_stale(&data, agent);
            ServerTools {
                integration: agent_tables(&data, agent)
                    .into_iter()
                    .map(|t| t.definition)
                    .collect(),
                ..ServerTools::default()
            }
        })
    }

    /// Runs `call` if it names one of the agent's integration tools;
    /// `None` when it names none (it is another kind's).
    pub async fn run(&self, scope: &ToolScope, call: &ToolCall) -> Option<ToolOutput> {
        let data = self.hub.org(scope.org).await?;
        let found = agent_tables(&data, scope.agent)
            .into_iter()
            .find(|t| t.definition.name == call.name)?;
        let calling = self
            .hub
            .call(found.integration, found.table, found.count, &call.arguments);
        Some(
            tokio::time::timeout(CALL_DEADLINE, calling)
                .await
                .unwrap_or_else(|_| {
                    ToolOutput::error(format!(
                        "{} {} ms",
                        confer_actors::tools::TIMEOUT_PREFIX,
                        CALL_DEADLINE.as_millis()
                    ))
                }),
        )
    }
}
