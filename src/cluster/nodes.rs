//! The `nodes` table (`scale.md` §3.2): a node registers under a fresh id
//! at each start, keeps its row alive with a heartbeat each second, and
//! is dead once `expires_at` passes on PostgreSQL's clock. Two live nodes
//! never share a name.

use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio_postgres::Client;

use super::NodeId;
use crate::settings::Settings;
use crate::store::pg::PgError;

/// Who this node is among its peers.
#[derive(Clone, Debug)]
pub struct NodeSettings {
    pub name: String,
    /// How peers reach it (`http://host:port`).
    pub url: String,
    /// A node silent this long is dead.
    pub ttl: Duration,
}

impl NodeSettings {
    /// `CONFER_NODE_NAME` (else the host name), `CONFER_NODE_URL` (else
    /// `http://{bound}`, refused for a wildcard address, which peers
    /// cannot dial) and `CONFER_LEASE_TTL_SECS` (at least 2 s: a node
    /// stops admitting turns one second before its lease can lapse).
    pub fn from_settings(settings: &Settings, bound: std::net::SocketAddr) -> Result<Self, String> {
        let name = match &settings.node_name {
            Some(name) => name.trim().to_owned(),
            None => host_name(),
        };
        let url = match &settings.node_url {
            Some(url) => url.trim().trim_end_matches('/').to_owned(),
            None if bound.ip().is_unspecified() => {
                return Err(
                    "CONFER_NODE_URL is required when CONFER_BIND is a wildcard address \
                     (peers must be able to reach this node)"
                        .into(),
                );
            }
            None => format!("http://{bound}"),
        };
        if !url.starts_with("http://") && !url.starts_with("https://") {
            return Err("CONFER_NODE_URL must be an http:// or https:// URL".into());
        }
        Ok(Self {
            name,
            url,
            ttl: Duration::from_secs(settings.lease_ttl_secs.max(2)),
        })
    }
}

/// The machine's host name, or `confer` if it has none.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|name| name.trim().to_owned())
        .ok()
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "confer".to_owned())
}

/// A live node, as `nodes` has it.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveNode {
    pub id: NodeId,
    pub name: String,
    pub url: String,
    pub heartbeat_at: DateTime<Utc>,
    pub draining: bool,
    /// How long it has been registered, by PostgreSQL's clock.
    pub live_for: Duration,
}

/// Why a node may not register.
fn name_taken(name: &str) -> PgError {
    PgError::Refused(format!(
        "another live node is named {name:?}; give each node its own CONFER_NODE_NAME"
    ))
}

async fn name_is_live(client: &Client, name: &str) -> Result<bool, PgError> {
    Ok(client
        .query_opt(
            "SELECT 1 FROM nodes WHERE name = $1 AND expires_at > now()",
            &[&name],
        )
        .await?
        .is_some())
}

/// Registers a node under a fresh id. A live row with the same name may be
/// this node's own earlier life (killed, its lease not yet run out), so
/// registration waits one TTL for it before refusing.
pub async fn register(client: &Client, settings: &NodeSettings) -> Result<NodeId, PgError> {
    if name_is_live(client, &settings.name).await? {
        tokio::time::sleep(settings.ttl).await;
        if name_is_live(client, &settings.name).await? {
            return Err(name_taken(&settings.name));
        }
    }
    let id = NodeId::fresh();
    client
        .execute(
            "INSERT INTO nodes (id, name, url, heartbeat_at, expires_at)
             VALUES ($1, $2, $3, now(), now() + make_interval(secs => $4))",
            &[
                &id.0,
                &settings.name,
                &settings.url,
                &settings.ttl.as_secs_f64(),
            ],
        )
        .await?;
    Ok(id)
}

/// Extends the node's lease by one TTL; `false` when it had already run
/// out (or the row is gone): the node has lost its shards and must drop
/// its actors and register again.
pub async fn heartbeat(client: &Client, id: NodeId, ttl: Duration) -> Result<bool, PgError> {
    let updated = client
        .execute(
            "UPDATE nodes SET heartbeat_at = now(), expires_at = now() + make_interval(secs => $2)
             WHERE id = $1 AND expires_at > now()",
            &[&id.0, &ttl.as_secs_f64()],
        )
        .await?;
    Ok(updated == 1)
}

/// The live nodes, by name.
pub async fn live(client: &Client) -> Result<Vec<LiveNode>, PgError> {
    let rows = client
        .query(
            "SELECT id, name, url, heartbeat_at, draining,
                    EXTRACT(EPOCH FROM (now() - started_at))::float8
             FROM nodes WHERE expires_at > now() ORDER BY name",
            &[],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| LiveNode {
            id: NodeId(row.get(0)),
            name: row.get(1),
            url: row.get(2),
            heartbeat_at: row.get(3),
            draining: row.get(4),
            live_for: Duration::from_secs_f64(row.get::<_, f64>(5).max(0.0)),
        })
        .collect())
}

/// Marks the node draining: no node prefers it for any shard from now on.
pub async fn set_draining(client: &Client, id: NodeId) -> Result<(), PgError> {
    client
        .execute("UPDATE nodes SET draining = true WHERE id = $1", &[&id.0])
        .await?;
    Ok(())
}

/// A drained node's goodbye: whatever shards it still holds are released
/// (their epochs moved) and its row deleted, in one transaction.
pub async fn deregister(client: &mut Client, id: NodeId) -> Result<(), PgError> {
    let transaction = client.transaction().await?;
    transaction
        .execute(
            "UPDATE shard_leases SET node_id = NULL, epoch = epoch + 1, since = now()
             WHERE node_id = $1",
            &[&id.0],
        )
        .await?;
    transaction
        .execute("DELETE FROM nodes WHERE id = $1", &[&id.0])
        .await?;
    transaction.execute("NOTIFY confer_shards", &[]).await?;
    transaction.commit().await?;
    Ok(())
}
