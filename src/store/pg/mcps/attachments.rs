//! MCP servers' attachments to agents on PostgreSQL: a write holds the
//! server's row `FOR SHARE`, so it waits for (or is refused after) a
//! delete of the server, which takes every attachment with it; each
//! write bumps the org's `cache_versions` row for `mcps`.

use chrono::Utc;
use confer_actors::{AgentId, McpServerId, OrgId, StoreError};

use super::super::records::{PgStore, V, body, db, micro, record};
use super::super::tools::bump;
use super::KIND;
use crate::store::mcps::{AttachOutcome, McpAttachment};

/// Writes an attachment of `server` to `agent` unless the server is
/// gone: `Missing` then; `insert` decides whether a new one is made.
pub(super) async fn put(
    store: &PgStore,
    org: OrgId,
    agent: AgentId,
    server: McpServerId,
    allowed: Option<Vec<String>>,
    insert: bool,
) -> Result<(AttachOutcome, Option<McpAttachment>), StoreError> {
    let mut session = store.session().await?;
    let tx = session.client.transaction().await.map_err(db)?;
    let exists = tx
        .query_opt(
            "SELECT 1 FROM mcp_servers WHERE org_id = $1 AND id = $2 FOR SHARE",
            &[&org.0, &server.0],
        )
        .await
        .map_err(db)?
        .is_some();
    if !exists {
        return Ok((AttachOutcome::Missing, None));
    }
    let before: Option<McpAttachment> = tx
        .query_opt(
            "SELECT v, body FROM mcp_attachments
             WHERE org_id = $1 AND agent_id = $2 AND server_id = $3 FOR UPDATE",
            &[&org.0, &agent.0, &server.0],
        )
        .await
        .map_err(db)?
        .map(|row| record(&row))
        .transpose()?;
    if before.is_none() && !insert {
        return Ok((AttachOutcome::Missing, None));
    }
    let attachment = McpAttachment {
        target: server,
        allowed,
        attached_at: before
            .as_ref()
            .map_or_else(|| micro(Utc::now()), |b| b.attached_at),
    };
    tx.execute(
        "INSERT INTO mcp_attachments (org_id, agent_id, server_id, attached_at, v, body)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (org_id, agent_id, server_id) DO UPDATE SET v = $5, body = $6",
        &[
            &org.0,
            &agent.0,
            &server.0,
            &attachment.attached_at,
            &V,
            &body(&attachment),
        ],
    )
    .await
    .map_err(db)?;
    bump(&tx, org, KIND).await?;
    tx.commit().await.map_err(db)?;
    let outcome = match before {
        Some(_) => AttachOutcome::Replaced,
        None => AttachOutcome::Attached,
    };
    Ok((outcome, Some(attachment)))
}

/// Detaches `server` from `agent`; whether it was attached.
pub(super) async fn detach(
    store: &PgStore,
    org: OrgId,
    agent: AgentId,
    server: McpServerId,
) -> Result<bool, StoreError> {
    let mut session = store.session().await?;
    let tx = session.client.transaction().await.map_err(db)?;
    let detached = tx
        .execute(
            "DELETE FROM mcp_attachments
         WHERE org_id = $1 AND agent_id = $2 AND server_id = $3",
            &[&org.0, &agent.0, &server.0],
        )
        .await
        .map_err(db)?;
    if detached > 0 {
        bump(&tx, org, KIND).await?;
    }
    tx.commit().await.map_err(db)?;
    Ok(detached > 0)
}

/// Every attachment in the org, with its agent, oldest first.
pub(super) async fn of_org(
    store: &PgStore,
    org: OrgId,
) -> Result<Vec<(AgentId, McpAttachment)>, StoreError> {
    let session = store.session().await?;
    let rows = session
        .client
        .query(
            "SELECT agent_id, v, body FROM mcp_attachments WHERE org_id = $1
             ORDER BY attached_at, server_id",
            &[&org.0],
        )
        .await
        .map_err(db)?;
    rows.iter()
        .map(|row| Ok((AgentId(row.get(0)), record(row)?)))
        .collect()
}
