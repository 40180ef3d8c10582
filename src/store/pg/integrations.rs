//! Database integrations on PostgreSQL: a slug chosen under an advisory
//! lock of the org, a schema read written while the row is held, and every
//! write to an integration or an attachment bumping the org's
//! `cache_versions` row for `integrations` (`scale.md` §5), so each node's
//! query tools read the org's integrations again within the second.

use chrono::Utc;
use confer_actors::{AgentId, IntegrationId, OrgId, StoreFuture};

use super::attached::Attached;
use super::records::{PgStore, V, body, db, record};
use super::tools::bump;
use crate::store::integrations::{AttachOutcome, Integration, OrgIntegrations, Table, sealed};
use crate::store::port::IntegrationRecords;

/// The `cache_versions` kind of integrations and their attachments.
pub const KIND: &str = "integrations";

/// Integrations' slugs and attachments.
pub(super) const ATTACHED: Attached = Attached {
    targets: "integrations",
    attachments: "integration_attachments",
    target_column: "integration_id",
    cache: KIND,
    slug_lock: 15,
};

impl IntegrationRecords for PgStore {
    fn create_integration(&self, integration: Integration) -> StoreFuture<Integration> {
        let store = self.clone();
        Box::pin(async move {
            let mut integration = sealed(&store.secrets, integration)?;
            let org = integration.org_id;
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            integration.slug = ATTACHED.take_slug(&tx, org, &integration.slug).await?;
            tx.execute(
                "INSERT INTO integrations (org_id, id, slug, v, body) VALUES ($1, $2, $3, $4, $5)",
                &[
                    &org.0,
                    &integration.id.0,
                    &integration.slug,
                    &V,
                    &body(&integration),
                ],
            )
            .await
            .map_err(db)?;
            bump(&tx, org, KIND).await?;
            tx.commit().await.map_err(db)?;
            Ok(integration)
        })
    }

    fn integrations(&self, org: OrgId) -> StoreFuture<Vec<Integration>> {
        let store = self.clone();
        Box::pin(async move {
            let sql = "SELECT v, body FROM integrations WHERE org_id = $1";
            let mut all: Vec<Integration> = store.all(sql, &[&org.0]).await?;
            all.sort_by_key(|i| (i.created_at, i.id.as_bytes().to_owned()));
            Ok(all)
        })
    }

    fn integration(&self, org: OrgId, id: IntegrationId) -> StoreFuture<Option<Integration>> {
        let store = self.clone();
        Box::pin(async move {
            let sql = "SELECT v, body FROM integrations WHERE org_id = $1 AND id = $2";
            store.one(sql, &[&org.0, &id.0]).await
        })
    }

    fn record_integration_schema(
        &self,
        org: OrgId,
        id: IntegrationId,
        schema: Vec<Table>,
    ) -> StoreFuture<Option<Integration>> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let held = tx
                .query_opt(
                    "SELECT v, body FROM integrations WHERE org_id = $1 AND id = $2 FOR UPDATE",
                    &[&org.0, &id.0],
                )
                .await
                .map_err(db)?;
            let Some(row) = held else {
                return Ok(None);
            };
            let mut integration: Integration = record(&row)?;
            integration.schema = schema;
            integration.schema_read_at = Utc::now();
            tx.execute(
                "UPDATE integrations SET v = $3, body = $4 WHERE org_id = $1 AND id = $2",
                &[&org.0, &id.0, &V, &body(&integration)],
            )
            .await
            .map_err(db)?;
            bump(&tx, org, KIND).await?;
            tx.commit().await.map_err(db)?;
            Ok(Some(integration))
        })
    }

    fn delete_integration(&self, org: OrgId, id: IntegrationId) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let deleted = tx
                .execute(
                    "DELETE FROM integrations WHERE org_id = $1 AND id = $2",
                    &[&org.0, &id.0],
                )
                .await
                .map_err(db)?;
            if deleted == 0 {
                return Ok(false);
            }
            ATTACHED.detach_all(&tx, org, id.0).await?;
            bump(&tx, org, KIND).await?;
            tx.commit().await.map_err(db)?;
            Ok(true)
        })
    }

    fn attach_integration(
        &self,
        org: OrgId,
        agent: AgentId,
        id: IntegrationId,
        tables: Option<Vec<String>>,
    ) -> StoreFuture<AttachOutcome> {
        let store = self.clone();
        Box::pin(async move {
            let put = ATTACHED.put(&store, org, agent, (id, id.0), tables, true);
            Ok(put.await?.0)
        })
    }

    fn detach_integration(
        &self,
        org: OrgId,
        agent: AgentId,
        id: IntegrationId,
    ) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(async move { ATTACHED.detach(&store, org, agent, id.0).await })
    }

    fn org_integrations(&self, org: OrgId) -> StoreFuture<OrgIntegrations> {
        let store = self.clone();
        Box::pin(async move {
            Ok(OrgIntegrations {
                integrations: store.integrations(org).await?,
                attachments: ATTACHED.of_org(&store, org).await?,
            })
        })
    }
}
