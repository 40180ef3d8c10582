//! Database integrations (`tools.md` §7): an org's PostgreSQL databases,
//! whose tables an agent reads through `query_{table}` and `count_{table}`
//! tools built from the live schema. Every statement runs in a read-only
//! transaction with a 5 s statement timeout and is rolled back; at most
//! [`MAX_CONNECTIONS`] connections per integration are open. The
//! connection rules are in `connection`, the statements in `query`.

pub mod connection;
pub mod query;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use chrono::Utc;
use confer_actors::tools::{OfferedFuture, ServerTools, ToolOutput, ToolScope};
use confer_actors::{AgentId, IntegrationId, OrgId, ToolCall, ToolDefinition};
use secrecy::ExposeSecret;
use serde_json::{Value, json};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_postgres::types::Type;

use self::connection::{Target, TlsSettings};
use crate::outbound::Outbound;
use crate::store::Store;
use crate::store::integrations::{Column, Integration, OrgIntegrations, Table};
use crate::store::mcps::allowed_by;
use crate::tools::mcp::results::fit;
use crate::tools::org_cache::OrgCache;
use crate::tools::webhook::RESULT_CAP;

/// Open connections per integration at most.
pub const MAX_CONNECTIONS: usize = 4;
/// Integrations with a pool at most; past it the least recently used pool
/// is closed.
pub const MAX_POOLS: usize = 256;
/// A turn starting this long after the schema was read asks for a new read
/// (in the background).
pub const SCHEMA_TTL: chrono::TimeDelta = chrono::TimeDelta::minutes(10);
/// What a statement may take.
const STATEMENT_TIMEOUT: &str = "SET LOCAL statement_timeout = '5s'";

/// The tables of `public` and their columns, views included.
const SCHEMA_SQL: &str = "SELECT c.table_name::text, c.column_name::text, c.data_type::text, \
     c.udt_schema::text, c.udt_name::text \
     FROM information_schema.columns c \
     JOIN information_schema.tables t \
       ON t.table_schema = c.table_schema AND t.table_name = c.table_name \
     WHERE c.table_schema = 'public' \
     ORDER BY c.table_name, c.ordinal_position";

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

/// One integration's open connections.
struct Pool {
    permits: Arc<Semaphore>,
    idle: Mutex<Vec<tokio_postgres::Client>>,
    used: std::sync::atomic::AtomicU64,
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
    tls: TlsSettings,
    orgs: OrgCache<OrgIntegrations>,
    pools: Mutex<HashMap<IntegrationId, Arc<Pool>>>,
    clock: std::sync::atomic::AtomicU64,
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
            pools: Mutex::default(),
            clock: std::sync::atomic::AtomicU64::new(0),
            reading: Mutex::default(),
            me: me.clone(),
        })
    }

    /// Checks a connection string (the 422 of a create names the rule).
    pub fn check(&self, raw: &str) -> Result<Target, String> {
        connection::parse(raw, self.outbound.policy())
    }

    /// Connects to `target` and reads the tables of `public` (`tables`:
    /// only those; a listed table that is not there is an error naming it).
    pub async fn read_schema(
        &self,
        target: &Target,
        tables: Option<&[String]>,
    ) -> Result<Vec<Table>, SchemaError> {
        let client = connection::connect(target, &self.tls)
            .await
            .map_err(SchemaError::Connect)?;
        let rows = read_only(&client, SCHEMA_SQL, &[])
            .await
            .map_err(|e| SchemaError::Connect(DbFailure::of(&e).to_string()))?;
        let mut schema: Vec<Table> = Vec::new();
        for row in rows {
            let text = |at: usize| text_at(&row, at);
            let name = text(0);
            if tables.is_some_and(|listed| !listed.contains(&name)) {
                continue;
            }
            let column = Column {
                name: text(1),
                data_type: text(2),
                udt_schema: text(3),
                udt_name: text(4),
            };
            match schema.last_mut() {
                Some(table) if table.name == name => table.columns.push(column),
                _ => schema.push(Table {
                    name,
                    columns: vec![column],
                }),
            }
        }
        if let Some(listed) = tables
            && let Some(missing) = listed
                .iter()
                .find(|t| !schema.iter().any(|s| &s.name == *t))
        {
            return Err(SchemaError::UnknownTable(missing.clone()));
        }
        Ok(schema)
    }

    /// The org's integrations and attachments (from memory when kept).
    pub async fn org(&self, org: OrgId) -> Option<Arc<OrgIntegrations>> {
        if let Some(kept) = self.orgs.get(org) {
            return Some(kept);
        }
        let generation = self.orgs.generation();
        match self.store.run(move |s| s.org_integrations(org)).await {
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
        locked(&self.pools).remove(&id);
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
                    .write(move |s| s.record_integration_schema(org, id, schema))
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

    async fn target(&self, integration: &Integration) -> Result<Target, DbFailure> {
        let sealed = integration.clone();
        let raw = self
            .store
            .run(move |s| s.integration_connection(&sealed))
            .await
            .map_err(|_| DbFailure::Connect("the connection string could not be opened".into()))?;
        // Checked again at each connection: the allow-list may have changed.
        self.check(raw.expose_secret()).map_err(DbFailure::Connect)
    }

    fn pool(&self, id: IntegrationId) -> Arc<Pool> {
        let now = self
            .clock
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut pools = locked(&self.pools);
        if let Some(pool) = pools.get(&id) {
            pool.used.store(now, std::sync::atomic::Ordering::Relaxed);
            return Arc::clone(pool);
        }
        if pools.len() >= MAX_POOLS {
            let oldest = pools
                .iter()
                .min_by_key(|(_, p)| p.used.load(std::sync::atomic::Ordering::Relaxed))
                .map(|(id, _)| *id);
            if let Some(oldest) = oldest {
                pools.remove(&oldest);
            }
        }
        let pool = Arc::new(Pool {
            permits: Arc::new(Semaphore::new(MAX_CONNECTIONS)),
            idle: Mutex::default(),
            used: std::sync::atomic::AtomicU64::new(now),
        });
        pools.insert(id, Arc::clone(&pool));
        pool
    }

    /// Integrations with a pool now.
    pub fn pool_count(&self) -> usize {
        locked(&self.pools).len()
    }

    /// A connection of `integration`'s pool (waiting for one of its
    /// [`MAX_CONNECTIONS`]), and its permit.
    async fn connection(
        &self,
        integration: &Integration,
    ) -> Result<(Arc<Pool>, tokio_postgres::Client, OwnedSemaphorePermit), DbFailure> {
        let pool = self.pool(integration.id);
        let permit = Arc::clone(&pool.permits)
            .acquire_owned()
            .await
            .map_err(|_| DbFailure::Connect("the pool closed".into()))?;
        let idle = locked(&pool.idle).pop();
        if let Some(client) = idle.filter(|c| !c.is_closed()) {
            return Ok((pool, client, permit));
        }
        let target = self.target(integration).await?;
        let client = connection::connect(&target, &self.tls)
            .await
            .map_err(DbFailure::Connect)?;
        Ok((pool, client, permit))
    }

    /// Runs one tool call of `table` of `integration`.
    pub async fn call(
        &self,
        integration: &Integration,
        table: &Table,
        count: bool,
        arguments: &Value,
    ) -> ToolOutput {
        let built = if count {
            query::count(table, arguments).map(|s| (s, Vec::new()))
        } else {
            query::query(table, arguments)
        };
        let (statement, columns) = match built {
            Ok(built) => built,
            Err(why) => return ToolOutput::error(why),
        };
        let (pool, client, permit) = match self.connection(integration).await {
            Ok(taken) => taken,
            Err(failure) => return failure.output(),
        };
        let params: Vec<(&(dyn tokio_postgres::types::ToSql + Sync), Type)> = statement
            .params
            .iter()
            .map(|p| (p as &(dyn tokio_postgres::types::ToSql + Sync), Type::TEXT))
            .collect();
        let rows = read_only(&client, &statement.sql, &params).await;
        if !client.is_closed() {
            locked(&pool.idle).push(client);
        }
        drop(permit);
        let rows = match rows {
            Ok(rows) => rows,
            Err(error) => return DbFailure::of(&error).output(),
        };
        if count {
            let counted = rows
                .first()
                .map(|r| text_at(r, 0))
                .and_then(|t| t.parse::<i64>().ok())
                .unwrap_or_default();
            return ToolOutput {
                result: json!({ "count": counted }),
                is_error: false,
            };
        }
        let mut answered = Vec::with_capacity(rows.len());
        let mut size = 32;
        let mut truncated = false;
        for row in &rows {
            let value = query::row(&text_at(row, 0), &columns);
            size += value.to_string().len() + 1;
            if size > RESULT_CAP {
                truncated = true;
                break;
            }
            answered.push(value);
        }
        ToolOutput {
            result: json!({ "rows": answered, "truncated": truncated }),
            is_error: false,
        }
    }
}

/// Column `at` of `row` as text ("" when null; every column Confer
/// selects is text).
fn text_at(row: &tokio_postgres::Row, at: usize) -> String {
    row.try_get::<_, Option<String>>(at)
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// Why a schema read failed.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    #[error("cannot connect: {0}")]
    Connect(String),
    #[error("`{0}` is not a table or view of schema public")]
    UnknownTable(String),
}

/// Runs `sql` in a read-only transaction with a statement timeout, then
/// rolls it back.
async fn read_only(
    client: &tokio_postgres::Client,
    sql: &str,
    params: &[(&(dyn tokio_postgres::types::ToSql + Sync), Type)],
) -> Result<Vec<tokio_postgres::Row>, tokio_postgres::Error> {
    client
        .batch_execute(&format!("BEGIN READ ONLY; {STATEMENT_TIMEOUT}"))
        .await?;
    let rows = client.query_typed(sql, params).await;
    let rolled_back = client.batch_execute("ROLLBACK").await;
    let rows = rows?;
    rolled_back?;
    Ok(rows)
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
        Some(
            self.hub
                .call(found.integration, found.table, found.count, &call.arguments)
                .await,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pools_keep_at_most_their_bound() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let policy = crate::outbound::OutboundPolicy::new("", None).unwrap();
        let outbound = Outbound::new(policy, None).unwrap();
        let hub = IntegrationHub::new(store, outbound, TlsSettings::new(None).unwrap());
        let first = IntegrationId::new();
        let kept = hub.pool(first);
        for _ in 1..MAX_POOLS {
            hub.pool(IntegrationId::new());
        }
        assert_eq!(hub.pool_count(), MAX_POOLS);
        // Used again, the first is not the least recent any more.
        assert!(Arc::ptr_eq(&kept, &hub.pool(first)));
        hub.pool(IntegrationId::new());
        assert_eq!(hub.pool_count(), MAX_POOLS);
        assert!(Arc::ptr_eq(&kept, &hub.pool(first)), "the recent one stays");
    }
}
