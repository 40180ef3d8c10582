//! An agent's plain configurations on PostgreSQL: one `agent_configs` row
//! per kind (the credential resolver's, with its sealed secret, is
//! `agents`'). A change holds the row (made first when absent, so two first changes
//! cannot both start from the default) and bumps the org's
//! `cache_versions` row for agent configurations (`scale.md` §5).

use confer_actors::{AgentId, OrgId, StoreFuture};
use serde_json::Value;

use super::agents::{config, put_config};
use super::records::{PgStore, db, record};
use super::tools::bump;
use crate::error::ApiError;
use crate::store::keys::ConfigKind;
use crate::store::port::{AgentConfigs, ConfigSwap, PlainConfig};
use crate::store::update::Updated;

/// The `cache_versions` kind of agent configurations.
const KIND: &str = "agent_configs";

impl AgentConfigs for PgStore {
    fn config_json(
        &self,
        org: OrgId,
        agent: AgentId,
        kind: PlainConfig,
    ) -> StoreFuture<Option<Value>> {
        let store = self.clone();
        Box::pin(async move {
            let session = store.session().await?;
            config(session.db(), org, agent, kind.kind()).await
        })
    }

    fn configs_json(
        &self,
        org: OrgId,
        agent: AgentId,
        kinds: Vec<PlainConfig>,
    ) -> StoreFuture<Vec<Option<Value>>> {
        let store = self.clone();
        Box::pin(async move {
            let wanted: Vec<i16> = kinds.iter().map(|kind| kind.kind() as i16).collect();
            let session = store.session().await?;
            let rows = session
                .db()
                .query(
                    "SELECT kind, v, body FROM agent_configs
                     WHERE org_id = $1 AND agent_id = $2 AND kind = ANY($3)",
                    &[&org.0, &agent.0, &wanted],
                )
                .await
                .map_err(db)?;
            let mut found = vec![None; wanted.len()];
            for row in &rows {
                let kind: i16 = row.get(0);
                if let Some(at) = wanted.iter().position(|k| *k == kind) {
                    found[at] = Some(record(row)?);
                }
            }
            Ok(found)
        })
    }

    fn org_configs_json(&self, org: OrgId, kind: PlainConfig) -> StoreFuture<Vec<Value>> {
        let store = self.clone();
        Box::pin(async move {
            let sql = "SELECT v, body FROM agent_configs
                       WHERE org_id = $1 AND kind = $2 ORDER BY agent_id";
            store.all(sql, &[&org.0, &(kind.kind() as i16)]).await
        })
    }

    fn update_config_json(
        &self,
        org: OrgId,
        agent: AgentId,
        kind: PlainConfig,
        change: ConfigSwap,
    ) -> StoreFuture<Updated<Value, ApiError>> {
        self.update_kind(org, agent, kind.kind(), change)
    }
}

impl PgStore {
    /// Changes the agent's `kind` configuration as JSON (`Null` when unset)
    /// under its row's lock.
    pub(super) fn update_kind(
        &self,
        org: OrgId,
        agent: AgentId,
        kind: ConfigKind,
        mut change: ConfigSwap,
    ) -> StoreFuture<Updated<Value, ApiError>> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.transaction().await.map_err(db)?;
            let kind_byte = kind as i16;
            tx.db()
                .execute(
                    "INSERT INTO agent_configs (org_id, agent_id, kind, v, body)
                 VALUES ($1, $2, $3, $4, 'null') ON CONFLICT DO NOTHING",
                    &[&org.0, &agent.0, &kind_byte, &super::records::V],
                )
                .await
                .map_err(db)?;
            let row = tx
                .db()
                .query_one(
                    "SELECT v, body FROM agent_configs
                     WHERE org_id = $1 AND agent_id = $2 AND kind = $3 FOR UPDATE",
                    &[&org.0, &agent.0, &kind_byte],
                )
                .await
                .map_err(db)?;
            let stored: Value = record(&row)?;
            let changed = match change(stored) {
                Ok(changed) => changed,
                Err(refused) => return Ok(Updated::Refused(refused)),
            };
            put_config(tx.db(), org, agent, kind, &changed).await?;
            bump(&*tx, org, KIND).await?;
            tx.commit().await.map_err(db)?;
            Ok(Updated::Stored(changed))
        })
    }
}
