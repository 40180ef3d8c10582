//! `use` on PostgreSQL (`marketplace-channels.md` §5): the new agent, its
//! plan and compaction settings, the servers made for it, its attachments
//! to servers and integrations of its org, and the `Idempotency-Key`'s
//! answer, in one transaction. Every check comes before any write, and a
//! target is held `FOR SHARE` until the commit, so a target deleted
//! meanwhile refuses the whole adoption (as sled's transaction does).

use std::collections::HashSet;

use chrono::{TimeDelta, Utc};
use confer_actors::{IntegrationId, McpServerId, StoreError};
use serde::Serialize;

use super::agents::{put_config, write_agent};
use super::attached::Attached;
use super::records::{PgStore, V, body, db, hold_lock, micro};
use super::tools::bump;
use super::{Tx, integrations, mcps};
use crate::marketplace::adopt::Adoption;
use crate::store::attached::Attachment;
use crate::store::keys::ConfigKind;
use crate::store::marketplace::Adopted;

/// The advisory lock under which an org's adoption keys are read and
/// written (two first uses of one key: one adopts, the other repeats).
const ADOPTION_KEY_LOCK: i32 = 22;

/// Whether every target of `links` is in the org (or made with it), each
/// held until the commit.
async fn targets_there<Id>(
    tx: &Tx<'_>,
    (org, attached, uuid_of): (uuid::Uuid, &Attached, fn(&Id) -> uuid::Uuid),
    links: &[(Id, Option<Vec<String>>)],
    made: &HashSet<uuid::Uuid>,
) -> Result<bool, StoreError> {
    let sql = format!(
        "SELECT 1 FROM {} WHERE org_id = $1 AND id = $2 FOR SHARE",
        attached.targets
    );
    for (target, _) in links {
        let id = uuid_of(target);
        if made.contains(&id) {
            continue;
        }
        if tx
            .query_opt(sql.as_str(), &[&org, &id])
            .await
            .map_err(db)?
            .is_none()
        {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Attaches each target of `links` to the new agent.
async fn attach<Id: Copy + Serialize + Sync + std::fmt::Debug>(
    tx: &Tx<'_>,
    (org, agent, attached, uuid_of): (uuid::Uuid, uuid::Uuid, &Attached, fn(&Id) -> uuid::Uuid),
    links: &[(Id, Option<Vec<String>>)],
) -> Result<(), StoreError> {
    let sql = format!(
        "INSERT INTO {} (org_id, agent_id, {}, attached_at, v, body) VALUES ($1, $2, $3, $4, $5, $6)",
        attached.attachments, attached.target_column
    );
    let now = micro(Utc::now());
    for (target, allowed) in links {
        let attachment = Attachment {
            target: *target,
            allowed: allowed.clone(),
            attached_at: now,
        };
        let id = uuid_of(target);
        tx.execute(
            sql.as_str(),
            &[&org, &agent, &id, &now, &V, &body(&attachment)],
        )
        .await
        .map_err(db)?;
    }
    if !links.is_empty() {
        bump(&**tx, confer_actors::OrgId(org), attached.cache).await?;
    }
    Ok(())
}

impl PgStore {
    pub(super) async fn adopt_on_pg(
        self,
        adoption: Adoption,
        keyed: Option<([u8; 32], String)>,
        answer: String,
    ) -> Result<Adopted, StoreError> {
        let mut agent = adoption.agent.clone();
        agent.created_at = micro(agent.created_at);
        agent.updated_at = micro(agent.updated_at);
        let (org, now) = (agent.org_id, micro(Utc::now()));
        let mut session = self.session().await?;
        let tx = session.transaction().await.map_err(db)?;
        if let Some((key, request)) = &keyed {
            hold_lock(&*tx, ADOPTION_KEY_LOCK, org.0).await?;
            let seen = tx
                .query_opt(
                    "SELECT request, answer, created_at FROM keyed_adoptions
                     WHERE org_id = $1 AND key_hash = $2",
                    &[&org.0, &key.as_slice()],
                )
                .await
                .map_err(db)?;
            if let Some(seen) = seen {
                let keep = TimeDelta::hours(confer_actors::idempotency::KEEP_FOR_HOURS);
                if now - seen.get::<_, chrono::DateTime<Utc>>(2) < keep {
                    return Ok(match seen.get::<_, String>(0) == *request {
                        true => Adopted::Repeat(seen.get(1)),
                        false => Adopted::KeyReused,
                    });
                }
            }
        }
        let made: HashSet<uuid::Uuid> = adoption.new_mcps.iter().map(|s| s.id.0).collect();
        let mcps = (org.0, &mcps::ATTACHED, (|id| id.0) as fn(&McpServerId) -> _);
        let integrations = (
            org.0,
            &integrations::ATTACHED,
            (|id| id.0) as fn(&IntegrationId) -> _,
        );
        if !targets_there(&tx, mcps, &adoption.mcp_attachments, &made).await?
            || !targets_there(&tx, integrations, &adoption.integration_attachments, &made).await?
        {
            return Ok(Adopted::TargetGone);
        }
        for server in &adoption.new_mcps {
            mcps::insert_server(&tx, &mut server.clone()).await?;
        }
        if !made.is_empty() {
            bump(&*tx, org, mcps::KIND).await?;
        }
        let links = (org.0, agent.id.0, mcps.1, mcps.2);
        attach(&tx, links, &adoption.mcp_attachments).await?;
        let links = (org.0, agent.id.0, integrations.1, integrations.2);
        attach(&tx, links, &adoption.integration_attachments).await?;
        if let Some((key, request)) = &keyed {
            tx.execute(
                "INSERT INTO keyed_adoptions (org_id, key_hash, request, answer, created_at)
                 VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (org_id, key_hash) DO UPDATE SET request = excluded.request,
                    answer = excluded.answer, created_at = excluded.created_at",
                &[&org.0, &key.as_slice(), request, &answer, &now],
            )
            .await
            .map_err(db)?;
        }
        let id = agent.id;
        write_agent(&tx, agent).await?;
        put_config(tx.db(), org, id, ConfigKind::Plans, &adoption.plan).await?;
        if let Some(compaction) = &adoption.compaction {
            put_config(tx.db(), org, id, ConfigKind::Compaction, compaction).await?;
        }
        tx.commit().await.map_err(db)?;
        Ok(Adopted::Stored)
    }
}
