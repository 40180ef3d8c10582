//! Agents and their configurations on PostgreSQL: `agents`, and
//! `agent_configs` with one row per (agent, kind), the kind being sled's
//! config kind byte ([`ConfigKind`]).

use confer_actors::{
    Agent, AgentId, CompactionConfig, CredentialConfig, OrgId, StoreError, StoreFuture,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio_postgres::GenericClient;

use super::records::{PgStore, V, body, db, micro, record};
use crate::store::keys::ConfigKind;
use crate::store::port::AgentRecords;
use crate::store::sealed::{open_credentials, seal_credentials};

/// The agent's `kind` configuration as stored (`None`: never set).
pub(crate) async fn config<T: DeserializeOwned>(
    client: &impl GenericClient,
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
    client: &impl GenericClient,
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

/// The agent's row, in `org` only.
pub(crate) async fn agent(
    client: &impl GenericClient,
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
            let session = store.session().await?;
            session
                .client
                .execute(
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
                        &body(&agent),
                    ],
                )
                .await
                .map_err(db)?;
            Ok(())
        })
    }

    fn agent(&self, org: OrgId, id: AgentId) -> StoreFuture<Option<Agent>> {
        let store = self.clone();
        Box::pin(async move { agent(&store.session().await?.client, org, id).await })
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
            put_config(
                &session.client,
                org,
                agent,
                ConfigKind::Credentials,
                &sealed,
            )
            .await
        })
    }

    fn credentials(&self, org: OrgId, agent: AgentId) -> StoreFuture<CredentialConfig> {
        let store = self.clone();
        Box::pin(async move {
            let session = store.session().await?;
            let stored = config(&session.client, org, agent, ConfigKind::Credentials).await?;
            open_credentials(&store.secrets, org, agent, stored.unwrap_or_default())
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
            put_config(&session.client, org, agent, ConfigKind::Compaction, &config).await
        })
    }
}
