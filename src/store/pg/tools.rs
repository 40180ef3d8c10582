//! Org tools on PostgreSQL: the unique `(org_id, name)` constraint keeps
//! names unique, an update holds the tool's row, and every write bumps the
//! org's `cache_versions` row for `tools` (`scale.md` §5) in its own
//! transaction.

use chrono::Utc;
use confer_actors::{OrgId, StoreError, StoreFuture, ToolId};
use secrecy::SecretString;
use tokio_postgres::GenericClient;

use super::records::{PgStore, V, body, db, micro, record, unique_violation};
use crate::store::port::{ToolChange, ToolRecords};
use crate::store::tools::{OrgTool, ToolWrite, secret_aad};

/// The `cache_versions` kind of org tools.
pub const KIND: &str = "tools";

/// How far back a node reads `cache_versions` each second: more than a
/// statement's 10 s cap, so a write committed late is still seen.
const CHANGES_WINDOW_SECS: f64 = 30.0;

impl PgStore {
    /// The `cache_versions` rows changed in the last 30 s: (org, kind,
    /// version).
    pub async fn recent_cache_changes(&self) -> Result<Vec<(OrgId, String, i64)>, StoreError> {
        let rows = self
            .session()
            .await?
            .client
            .query(
                "SELECT org_id, kind, version FROM cache_versions
                 WHERE changed_at > now() - $1 * interval '1 second'",
                &[&CHANGES_WINDOW_SECS],
            )
            .await
            .map_err(db)?;
        Ok(rows
            .iter()
            .map(|row| (OrgId(row.get(0)), row.get(1), row.get(2)))
            .collect())
    }
}

/// Bumps `org`'s version of `kind` and rings `confer_changes`: each node
/// drops its cached copy within the second (`scale.md` §5).
pub(crate) async fn bump(
    client: &impl GenericClient,
    org: OrgId,
    kind: &str,
) -> Result<(), StoreError> {
    client
        .execute(
            "INSERT INTO cache_versions (org_id, kind) VALUES ($1, $2)
             ON CONFLICT (org_id, kind)
             DO UPDATE SET version = cache_versions.version + 1, changed_at = now()",
            &[&org.0, &kind],
        )
        .await
        .map_err(db)?;
    client
        .execute("NOTIFY confer_changes", &[])
        .await
        .map_err(db)?;
    Ok(())
}

/// The tools `condition` selects, oldest first.
fn tools_where(condition: &str) -> String {
    format!("SELECT v, body FROM tools WHERE {condition} ORDER BY created_at, id")
}

impl PgStore {
    fn seal_tool_secret(&self, org: OrgId, id: ToolId, plain: &str) -> Result<String, StoreError> {
        self.secrets
            .seal(plain, &secret_aad(org, id))
            .map_err(|e| StoreError::Engine(e.to_string()))
    }
}

impl ToolRecords for PgStore {
    fn create_tool(&self, mut tool: OrgTool) -> StoreFuture<Result<OrgTool, ToolWrite>> {
        let store = self.clone();
        Box::pin(async move {
            let plain = std::mem::take(&mut tool.signing_secret);
            tool.signing_secret = store.seal_tool_secret(tool.org_id, tool.id, &plain)?;
            tool.created_at = micro(tool.created_at);
            tool.updated_at = micro(tool.updated_at);
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let inserted = tx
                .execute(
                    "INSERT INTO tools (org_id, id, name, created_at, v, body)
                     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (org_id, name) DO NOTHING",
                    &[
                        &tool.org_id.0,
                        &tool.id.0,
                        &tool.name,
                        &tool.created_at,
                        &V,
                        &body(&tool),
                    ],
                )
                .await
                .map_err(db)?;
            if inserted == 0 {
                return Ok(Err(ToolWrite::NameTaken));
            }
            bump(&tx, tool.org_id, KIND).await?;
            tx.commit().await.map_err(db)?;
            Ok(Ok(tool))
        })
    }

    fn list_tools(&self, org: OrgId) -> StoreFuture<Vec<OrgTool>> {
        let store = self.clone();
        Box::pin(async move { store.all(&tools_where("org_id = $1"), &[&org.0]).await })
    }

    fn tool(&self, org: OrgId, id: ToolId) -> StoreFuture<Option<OrgTool>> {
        let store = self.clone();
        Box::pin(async move {
            let sql = tools_where("org_id = $1 AND id = $2");
            store.one(&sql, &[&org.0, &id.0]).await
        })
    }

    fn tool_named(&self, org: OrgId, name: String) -> StoreFuture<Option<OrgTool>> {
        let store = self.clone();
        Box::pin(async move {
            let sql = tools_where("org_id = $1 AND name = $2");
            store.one(&sql, &[&org.0, &name]).await
        })
    }

    fn tool_secret(&self, tool: &OrgTool) -> Result<SecretString, StoreError> {
        self.secrets
            .open(&tool.signing_secret, &secret_aad(tool.org_id, tool.id))
            .map_err(|e| StoreError::Engine(e.to_string()))
    }

    fn update_tool(
        &self,
        org: OrgId,
        id: ToolId,
        rotate: Option<String>,
        change: ToolChange,
    ) -> StoreFuture<Result<OrgTool, ToolWrite>> {
        let store = self.clone();
        Box::pin(async move {
            let sealed = rotate
                .map(|plain| store.seal_tool_secret(org, id, &plain))
                .transpose()?;
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let Some(row) = tx
                .query_opt(
                    "SELECT v, body FROM tools WHERE org_id = $1 AND id = $2 FOR UPDATE",
                    &[&org.0, &id.0],
                )
                .await
                .map_err(db)?
            else {
                return Ok(Err(ToolWrite::Missing));
            };
            let mut tool: OrgTool = record(&row)?;
            change(&mut tool);
            if let Some(sealed) = sealed {
                tool.signing_secret = sealed;
            }
            tool.updated_at = micro(Utc::now());
            let updated = tx
                .execute(
                    "UPDATE tools SET name = $3, v = $4, body = $5 WHERE org_id = $1 AND id = $2",
                    &[&org.0, &id.0, &tool.name, &V, &body(&tool)],
                )
                .await;
            match updated {
                Ok(_) => {}
                Err(error) if unique_violation(&error) => return Ok(Err(ToolWrite::NameTaken)),
                Err(error) => return Err(db(error)),
            }
            bump(&tx, org, KIND).await?;
            tx.commit().await.map_err(db)?;
            Ok(Ok(tool))
        })
    }

    fn delete_tool(&self, org: OrgId, id: ToolId) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let deleted = tx
                .execute(
                    "DELETE FROM tools WHERE org_id = $1 AND id = $2",
                    &[&org.0, &id.0],
                )
                .await
                .map_err(db)?;
            if deleted == 0 {
                return Ok(false);
            }
            bump(&tx, org, KIND).await?;
            tx.commit().await.map_err(db)?;
            Ok(true)
        })
    }
}
