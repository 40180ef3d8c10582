//! What MCP servers and integrations share on PostgreSQL (as `attached`
//! on sled): a slug unique in the org, chosen under an advisory lock of
//! the org (the unique constraint backs it), and attachments to agents.
//! An attachment is written while its target's row is held `FOR SHARE`,
//! so it waits for (or is refused after) a delete of the target, which
//! takes every attachment with it; each write bumps the org's
//! `cache_versions` row of the kind.

use std::collections::HashSet;

use chrono::Utc;
use confer_actors::{AgentId, OrgId, StoreError};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio_postgres::Transaction;

use super::records::{PgStore, V, body, db, hold_lock, micro, record};
use super::tools::bump;
use crate::store::attached::{AttachOutcome, Attachment, slug_candidates};

/// The tables of one kind of attached target.
pub(crate) struct Attached {
    /// The targets' table (`org_id`, `id`, `slug`).
    pub targets: &'static str,
    /// The attachments' table (`org_id`, `agent_id`, the target column,
    /// `attached_at`, `v`, `body`).
    pub attachments: &'static str,
    pub target_column: &'static str,
    /// The `cache_versions` kind its writes bump.
    pub cache: &'static str,
    /// The advisory lock a new target's slug is chosen under.
    pub slug_lock: i32,
}

impl Attached {
    /// The first free slug of `base` in `org`, chosen while `tx` holds
    /// the org's slug lock.
    pub(crate) async fn take_slug(
        &self,
        tx: &Transaction<'_>,
        org: OrgId,
        base: &str,
    ) -> Result<String, StoreError> {
        hold_lock(tx, self.slug_lock, org.0).await?;
        let sql = format!("SELECT slug FROM {} WHERE org_id = $1", self.targets);
        let taken: HashSet<String> = tx
            .query(sql.as_str(), &[&org.0])
            .await
            .map_err(db)?
            .iter()
            .map(|row| row.get(0))
            .collect();
        Ok(slug_candidates(base)
            .find(|slug| !taken.contains(slug))
            .unwrap_or_else(|| base.to_owned()))
    }

    /// Writes an attachment of `target` to `agent` unless the target is
    /// gone (`Missing` then); `insert` decides whether a new one is made.
    pub(crate) async fn put<Id>(
        &self,
        store: &PgStore,
        org: OrgId,
        agent: AgentId,
        (target, id): (Id, uuid::Uuid),
        allowed: Option<Vec<String>>,
        insert: bool,
    ) -> Result<(AttachOutcome, Option<Attachment<Id>>), StoreError>
    where
        Id: Serialize + DeserializeOwned + Clone + std::fmt::Debug + Send + Sync,
    {
        let mut session = store.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        let held = format!(
            "SELECT 1 FROM {} WHERE org_id = $1 AND id = $2 FOR SHARE",
            self.targets
        );
        if tx
            .query_opt(held.as_str(), &[&org.0, &id])
            .await
            .map_err(db)?
            .is_none()
        {
            return Ok((AttachOutcome::Missing, None));
        }
        let read = format!(
            "SELECT v, body FROM {} WHERE org_id = $1 AND agent_id = $2 AND {} = $3 FOR UPDATE",
            self.attachments, self.target_column
        );
        let held = async |tx: &tokio_postgres::Transaction<'_>| {
            tx.query_opt(read.as_str(), &[&org.0, &agent.0, &id])
                .await
                .map_err(db)?
                .map(|row| record::<Attachment<Id>>(&row))
                .transpose()
        };
        let mut before = held(&tx).await?;
        if before.is_none() && !insert {
            return Ok((AttachOutcome::Missing, None));
        }
        let made = |before: &Option<Attachment<Id>>| Attachment {
            target: target.clone(),
            allowed: allowed.clone(),
            attached_at: before
                .as_ref()
                .map_or_else(|| micro(Utc::now()), |b| b.attached_at),
        };
        if before.is_none() {
            // Two first attaches may race past the read (it holds no row
            // yet): the insert decides which made it; the other waits for
            // it, then replaces it.
            let attachment = made(&before);
            let insert = format!(
                "INSERT INTO {table} (org_id, agent_id, {column}, attached_at, v, body)
                 VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT (org_id, agent_id, {column}) DO NOTHING",
                table = self.attachments,
                column = self.target_column
            );
            let at = attachment.attached_at;
            let inserted = tx
                .execute(
                    insert.as_str(),
                    &[&org.0, &agent.0, &id, &at, &V, &body(&attachment)],
                )
                .await
                .map_err(db)?;
            if inserted == 1 {
                bump(&tx, org, self.cache).await?;
                tx.commit().await.map_err(db)?;
                return Ok((AttachOutcome::Attached, Some(attachment)));
            }
            before = held(&tx).await?;
        }
        let attachment = made(&before);
        let write = format!(
            "INSERT INTO {table} (org_id, agent_id, {column}, attached_at, v, body)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (org_id, agent_id, {column}) DO UPDATE SET v = $5, body = $6",
            table = self.attachments,
            column = self.target_column
        );
        let at = attachment.attached_at;
        tx.execute(
            write.as_str(),
            &[&org.0, &agent.0, &id, &at, &V, &body(&attachment)],
        )
        .await
        .map_err(db)?;
        bump(&tx, org, self.cache).await?;
        tx.commit().await.map_err(db)?;
        Ok((AttachOutcome::Replaced, Some(attachment)))
    }

    /// Detaches `target` from `agent`; whether it was attached.
    pub(crate) async fn detach(
        &self,
        store: &PgStore,
        org: OrgId,
        agent: AgentId,
        target: uuid::Uuid,
    ) -> Result<bool, StoreError> {
        let mut session = store.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        let sql = format!(
            "DELETE FROM {} WHERE org_id = $1 AND agent_id = $2 AND {} = $3",
            self.attachments, self.target_column
        );
        let detached = tx
            .execute(sql.as_str(), &[&org.0, &agent.0, &target])
            .await
            .map_err(db)?;
        if detached > 0 {
            bump(&tx, org, self.cache).await?;
        }
        tx.commit().await.map_err(db)?;
        Ok(detached > 0)
    }

    /// Deletes every attachment of `target` (in its delete's transaction).
    pub(crate) async fn detach_all(
        &self,
        tx: &Transaction<'_>,
        org: OrgId,
        target: uuid::Uuid,
    ) -> Result<(), StoreError> {
        let sql = format!(
            "DELETE FROM {} WHERE org_id = $1 AND {} = $2",
            self.attachments, self.target_column
        );
        tx.execute(sql.as_str(), &[&org.0, &target])
            .await
            .map_err(db)?;
        Ok(())
    }

    /// Every attachment in the org, with its agent, oldest first.
    pub(crate) async fn of_org<Id: DeserializeOwned>(
        &self,
        store: &PgStore,
        org: OrgId,
    ) -> Result<Vec<(AgentId, Attachment<Id>)>, StoreError> {
        let session = store.session().await?;
        let sql = format!(
            "SELECT agent_id, v, body FROM {} WHERE org_id = $1 ORDER BY attached_at, {}",
            self.attachments, self.target_column
        );
        let rows = session
            .db()
            .query(sql.as_str(), &[&org.0])
            .await
            .map_err(db)?;
        rows.iter()
            .map(|row| Ok((AgentId(row.get(0)), record(row)?)))
            .collect()
    }

    /// One attachment, if any.
    pub(crate) async fn get<Id: DeserializeOwned>(
        &self,
        store: &PgStore,
        org: OrgId,
        agent: AgentId,
        target: uuid::Uuid,
    ) -> Result<Option<Attachment<Id>>, StoreError> {
        let sql = format!(
            "SELECT v, body FROM {} WHERE org_id = $1 AND agent_id = $2 AND {} = $3",
            self.attachments, self.target_column
        );
        store.one(sql.as_str(), &[&org.0, &agent.0, &target]).await
    }
}
