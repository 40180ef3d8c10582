//! `confer check --store URL` (`scale.md` §6): read-only, in one
//! REPEATABLE READ snapshot, so it runs beside live nodes. It decodes every
//! record (the manifest's pass), checks that each thread's messages and
//! context entries are numbered densely up to its counters and that no
//! turn is past its `last_turn`, that every sealed secret opens with the
//! configured key and the database's key check is that key's, and that the
//! shard leases are whole and name known nodes.

use confer_actors::{AgentId, OrgId, StoreError};
use tokio_postgres::GenericClient;
use tokio_postgres::types::Json;

use super::manifest::{self, Manifest};
use crate::cluster::SHARDS;
use crate::knowledge::embedding_config::EmbeddingConfig;
use crate::secrets::SecretBox;
use crate::store::integrations::Integration;
use crate::store::keys::ConfigKind;
use crate::store::pg::Database;
use crate::store::pg::meta::KEY_CHECK;
use crate::store::pg::records::{db, snapshot};

/// What a check of a PostgreSQL store found.
#[derive(Debug, Default)]
pub struct PgCheck {
    pub manifest: Manifest,
    /// Each problem, in words (none: the store is sound).
    pub problems: Vec<String>,
}

/// Checks the store in `database` with the key of `secrets`.
pub async fn check(database: &Database, secrets: &SecretBox) -> Result<PgCheck, StoreError> {
    let mut session = database
        .dedicated()
        .await
        .map_err(crate::store::pg::records::store_error)?;
    let client = &mut session.client;
    client
        .batch_execute("SET statement_timeout = 0")
        .await
        .map_err(db)?;
    let tx = snapshot(client).await.map_err(db)?;
    let mut problems = Vec::new();
    let manifest = manifest::of_postgres(&tx, &mut problems).await?;
    for (entries, counter) in [
        ("messages", "last_seq"),
        ("context_entries", "last_context_seq"),
    ] {
        dense(&tx, entries, counter, &mut problems).await?;
    }
    let past: i64 = tx
        .query_one(
            "SELECT count(*) FROM turns u JOIN threads t ON t.id = u.thread_id
             WHERE u.turn > t.last_turn",
            &[],
        )
        .await
        .map_err(db)?
        .get(0);
    if past > 0 {
        problems.push(format!(
            "{past} turns are numbered past their thread's last_turn"
        ));
    }
    leases(&tx, &mut problems).await?;
    sealed(&tx, secrets, &mut problems).await?;
    tx.commit().await.map_err(db)?;
    problems.truncate(100);
    Ok(PgCheck { manifest, problems })
}

/// Each thread's entries of `table` are numbered 1..=n with n its `counter`.
async fn dense(
    client: &impl GenericClient,
    table: &str,
    counter: &str,
    problems: &mut Vec<String>,
) -> Result<(), StoreError> {
    let sql = format!(
        "SELECT t.id, t.{counter}, e.n, e.top FROM threads t
         LEFT JOIN LATERAL (SELECT count(*) AS n, coalesce(max(seq), 0) AS top
                            FROM {table} WHERE thread_id = t.id) e ON true
         WHERE e.n <> t.{counter} OR e.top <> t.{counter}"
    );
    manifest::each_row(client, &sql, |row| {
        let (thread, last, n, top): (uuid::Uuid, i64, i64, i64) =
            (row.get(0), row.get(1), row.get(2), row.get(3));
        problems.push(format!(
            "thread {thread}: {n} {table} numbered up to {top}, its {counter} is {last}"
        ));
        Ok(())
    })
    .await
}

/// Every shard has one lease row, and an owned one names a known node.
async fn leases(client: &impl GenericClient, problems: &mut Vec<String>) -> Result<(), StoreError> {
    let row = client
        .query_one(
            "SELECT count(*),
                    count(*) FILTER (WHERE l.node_id IS NOT NULL AND n.id IS NULL)
             FROM shard_leases l LEFT JOIN nodes n ON n.id = l.node_id",
            &[],
        )
        .await
        .map_err(db)?;
    let (shards, orphaned): (i64, i64) = (row.get(0), row.get(1));
    if shards != i64::from(SHARDS) {
        problems.push(format!("{shards} shard leases, not {SHARDS}"));
    }
    if orphaned > 0 {
        problems.push(format!(
            "{orphaned} shard leases name a node that is not known"
        ));
    }
    Ok(())
}

/// Tools' and resolvers' signing secrets, MCP servers' credentials,
/// integrations' connection strings and embedding keys open, and the key check is the key's (or the old key's, a rotation
/// under way).
async fn sealed(
    client: &impl GenericClient,
    secrets: &SecretBox,
    problems: &mut Vec<String>,
) -> Result<(), StoreError> {
    let (current, old) = secrets.key_checks();
    let stored: Option<String> = client
        .query_opt("SELECT value FROM meta WHERE key = $1", &[&KEY_CHECK])
        .await
        .map_err(db)?
        .map(|row| row.get(0));
    if let Some(stored) = stored
        && stored != current
        && Some(&stored) != old.as_ref()
    {
        problems.push("the database's key check is not the configured secret key's".into());
    }
    for row in client
        .query("SELECT body FROM tools", &[])
        .await
        .map_err(db)?
    {
        // A body that does not decode is named by the manifest's pass.
        let Ok(Json(tool)) = row.try_get::<_, Json<crate::store::tools::OrgTool>>(0) else {
            continue;
        };
        if crate::store::tools::open_tool_secret(secrets, &tool).is_err() {
            problems.push(format!(
                "the signing secret of tool {} does not open with the secret key",
                tool.id
            ));
        }
    }
    for row in client
        .query("SELECT body FROM mcp_servers", &[])
        .await
        .map_err(db)?
    {
        let Ok(Json(server)) = row.try_get::<_, Json<crate::store::mcps::McpServer>>(0) else {
            continue;
        };
        if crate::store::mcps::credentials_of(secrets, &server).is_err()
            || crate::store::mcps::oauth_client_secret_of(secrets, &server).is_err()
        {
            problems.push(format!(
                "the credentials of MCP server {} do not open with the secret key",
                server.id
            ));
        }
    }
    for row in client
        .query("SELECT body FROM integrations", &[])
        .await
        .map_err(db)?
    {
        let Ok(Json(integration)) = row.try_get::<_, Json<Integration>>(0) else {
            continue;
        };
        if crate::store::integrations::connection_of(secrets, &integration).is_err() {
            problems.push(format!(
                "the connection string of integration {} does not open with the secret key",
                integration.id
            ));
        }
    }
    for row in client
        .query(
            "SELECT org_id, agent_id, body FROM agent_configs WHERE kind = $1",
            &[&(ConfigKind::Credentials as i16)],
        )
        .await
        .map_err(db)?
    {
        let (org, agent) = (OrgId(row.get(0)), AgentId(row.get(1)));
        let Ok(Json(config)) = row.try_get(2) else {
            continue;
        };
        if crate::store::sealed::open_credentials(secrets, org, agent, config).is_err() {
            problems.push(format!(
                "the signing secret of agent {agent}'s resolver does not open with the secret key"
            ));
        }
    }
    for row in client
        .query("SELECT org_id, v, body FROM embedding_configs", &[])
        .await
        .map_err(db)?
    {
        let org = OrgId(row.get(0));
        let Ok(config) = crate::store::pg::records::record::<EmbeddingConfig>(&row) else {
            continue;
        };
        if config.open_key(secrets, org).is_err() {
            problems.push(crate::store::check::embedding_key_problem(org));
        }
    }
    Ok(())
}
