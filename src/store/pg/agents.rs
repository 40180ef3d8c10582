//! Agents and their configurations on PostgreSQL: `agents`, and
//! `agent_configs` with one row per (agent, kind), the kind being sled's
//! config kind byte ([`ConfigKind`]).

use confer_actors::{
    Agent, AgentId, CompactionConfig, CredentialConfig, OrgId, ProjectId, StoreError, StoreFuture,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio_postgres::{GenericClient, Transaction};

use super::records::{PgStore, V, body, db, jsonb, micro, record};
use super::statements::Db;
use crate::error::ApiError;
use crate::store::keys::ConfigKind;
use crate::store::port::{AgentRecords, AgentSwap, ConfigSwap, CredentialSwap};
use crate::store::sealed::{open_credentials, seal_credentials};
use crate::store::update::Updated;

/// The agent's `kind` configuration as stored (`None`: never set).
pub(crate) async fn config<T: DeserializeOwned>(
    client: Db<'_, impl GenericClient>,
    org: OrgId,
    agent: AgentId,
    kind: ConfigKind,
) -> Result<Option<T>, StoreError> {
    client
        .query_opt(
            "SELECT v, body FROM agent_configs WHERE org_id = $1 AND agent_id = $2 AND kind = $3",
            &[&org.0, &agent.0, &(kind as i16)],
        )
        .await
        .map_err(db)?
        .map(|row| record(&row))
        .transpose()
}

/// Creates or replaces the agent's `kind` configuration.
pub(crate) async fn put_config<T: Serialize + Sync + std::fmt::Debug>(
    client: Db<'_, impl GenericClient>,
    org: OrgId,
    agent: AgentId,
    kind: ConfigKind,
    config: &T,
) -> Result<(), StoreError> {
    client
        .execute(
            "INSERT INTO agent_configs (org_id, agent_id, kind, v, body) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (org_id, agent_id, kind) DO UPDATE SET v = EXCLUDED.v, body = EXCLUDED.body",
            &[&org.0, &agent.0, &(kind as i16), &V, &body(config)],
        )
        .await
        .map_err(db)?;
    Ok(())
}

/// Whether `project` is a live project of `org`, its row share-locked
/// until `tx` ends: the project's delete waits, then detaches what `tx`
/// wrote.
pub(crate) async fn live_project(
    tx: &Transaction<'_>,
    org: OrgId,
    project: ProjectId,
) -> Result<bool, StoreError> {
    Ok(tx
        .query_opt(
            "SELECT 1 FROM projects WHERE org_id = $1 AND id = $2 FOR KEY SHARE",
            &[&org.0, &project.0],
        )
        .await
        .map_err(db)?
        .is_some())
}

/// Creates or replaces `agent`'s row in `tx` (its project dropped when
/// that is not a live project of its org, as sled reads it: detached).
pub(crate) async fn write_agent(tx: &Transaction<'_>, mut agent: Agent) -> Result<(), StoreError> {
    if let Some(project) = agent.project_id
        && !live_project(tx, agent.org_id, project).await?
    {
        agent.project_id = None;
    }
    tx.execute(
        "INSERT INTO agents (org_id, id, created_at, project_id, v, body)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (org_id, id) DO UPDATE
         SET project_id = EXCLUDED.project_id, v = EXCLUDED.v, body = EXCLUDED.body",
        &[
            &agent.org_id.0,
            &agent.id.0,
            &agent.created_at,
            &agent.project_id.map(|p| p.0),
            &V,
            &jsonb(&agent)?,
        ],
    )
    .await
    .map_err(db)?;
    Ok(())
}

/// The agent's row, in `org` only.
pub(crate) async fn agent(
    client: Db<'_, impl GenericClient>,
    org: OrgId,
    agent: AgentId,
) -> Result<Option<Agent>, StoreError> {
    client
        .query_opt(
            "SELECT v, body FROM agents WHERE org_id = $1 AND id = $2",
            &[&org.0, &agent.0],
        )
        .await
        .map_err(db)?
        .map(|row| record(&row))
        .transpose()
}

impl AgentRecords for PgStore {
    fn put_agent(&self, mut agent: Agent) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            agent.created_at = micro(agent.created_at);
            agent.updated_at = micro(agent.updated_at);
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            write_agent(&tx, agent).await?;
            tx.commit().await.map_err(db)
        })
    }

    fn agent(&self, org: OrgId, id: AgentId) -> StoreFuture<Option<Agent>> {
        let store = self.clone();
        Box::pin(async move { agent(store.session().await?.db(), org, id).await })
    }

    fn agents(&self, org: OrgId) -> StoreFuture<Vec<Agent>> {
        let store = self.clone();
        Box::pin(async move {
            let agents: Vec<Agent> = store
                .all(
                    "SELECT v, body FROM agents WHERE org_id = $1 ORDER BY id",
                    &[&org.0],
                )
                .await?;
            Ok(agents.into_iter().filter(|a| !a.is_deleted()).collect())
        })
    }

    fn update_agent(
        &self,
        org: OrgId,
        id: AgentId,
        mut change: AgentSwap,
    ) -> StoreFuture<Updated<Agent, ApiError>> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let held: Option<Agent> = tx
                .query_opt(
                    "SELECT v, body FROM agents WHERE org_id = $1 AND id = $2 FOR UPDATE",
                    &[&org.0, &id.0],
                )
                .await
                .map_err(db)?
                .map(|row| record(&row))
                .transpose()?;
            let Some(agent) = held.filter(|a| !a.is_deleted()) else {
                return Ok(Updated::Gone);
            };
            let mut changed = match change(agent) {
                Ok(changed) => changed,
                Err(refused) => return Ok(Updated::Refused(refused)),
            };
            if let Some(project) = changed.project_id
                && !live_project(&tx, org, project).await?
            {
                changed.project_id = None;
            }
            tx.execute(
                "UPDATE agents SET project_id = $3, v = $4, body = $5 WHERE org_id = $1 AND id = $2",
                &[
                    &org.0,
                    &id.0,
                    &changed.project_id.map(|p| p.0),
                    &V,
                    &jsonb(&changed)?,
                ],
            )
            .await
            .map_err(db)?;
            tx.commit().await.map_err(db)?;
            Ok(Updated::Stored(changed))
        })
    }

    fn put_credentials(
        &self,
        org: OrgId,
        agent: AgentId,
        config: CredentialConfig,
    ) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            let sealed = seal_credentials(&store.secrets, org, agent, config)?;
            let session = store.session().await?;
            put_config(session.db(), org, agent, ConfigKind::Credentials, &sealed).await
        })
    }

    fn credentials(&self, org: OrgId, agent: AgentId) -> StoreFuture<CredentialConfig> {
        let store = self.clone();
        Box::pin(async move {
            let session = store.session().await?;
            let stored = config(session.db(), org, agent, ConfigKind::Credentials).await?;
            open_credentials(&store.secrets, org, agent, stored.unwrap_or_default())
        })
    }

    fn update_credentials(
        &self,
        org: OrgId,
        agent: AgentId,
        mut change: CredentialSwap,
    ) -> StoreFuture<Updated<CredentialConfig, ApiError>> {
        let store = self.clone();
        let swap: ConfigSwap = Box::new(move |stored: Value| {
            let stored: CredentialConfig = match stored {
                Value::Null => CredentialConfig::default(),
                stored => serde_json::from_value(stored)
                    .map_err(|e| ApiError::Internal(format!("a stored configuration: {e}")))?,
            };
            let opened = open_credentials(&store.secrets, org, agent, stored)?;
            let changed = change(opened)?;
            let sealed = seal_credentials(&store.secrets, org, agent, changed)?;
            serde_json::to_value(sealed).map_err(|e| ApiError::Internal(e.to_string()))
        });
        let updated = self.update_kind(org, agent, ConfigKind::Credentials, swap);
        let secrets = std::sync::Arc::clone(&self.secrets);
        Box::pin(async move {
            Ok(match updated.await? {
                Updated::Stored(value) => {
                    let sealed: CredentialConfig = serde_json::from_value(value)
                        .map_err(|e| StoreError::Codec(e.to_string()))?;
                    Updated::Stored(open_credentials(&secrets, org, agent, sealed)?)
                }
                Updated::Gone => Updated::Gone,
                Updated::Refused(refused) => Updated::Refused(refused),
            })
        })
    }
    fn put_compaction(
        &self,
        org: OrgId,
        agent: AgentId,
        config: CompactionConfig,
    ) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            let session = store.session().await?;
            put_config(session.db(), org, agent, ConfigKind::Compaction, &config).await
        })
    }
}
