//! The purge of forgotten memories on PostgreSQL: each step takes one
//! marker and up to a batch of the memories it hides with `SKIP LOCKED`
//! (so nodes purging at once never take the same rows), removes them and
//! logs their removal from the search index; the marker goes once nothing
//! under it is left.

use confer_actors::{AgentId, MemoryId, OrgId, StoreError};
use tokio_postgres::Transaction;

use super::index_feed::log_changes;
use super::records::{PgStore, db};
use crate::store::knowledge::changes::IndexChange;

/// Removes `ids` of `agent` and logs their removal from the index.
pub(super) async fn remove(
    tx: &Transaction<'_>,
    org: OrgId,
    agent: AgentId,
    ids: &[uuid::Uuid],
) -> Result<(), StoreError> {
    if ids.is_empty() {
        return Ok(());
    }
    tx.execute(
        "DELETE FROM memories WHERE org_id = $1 AND agent_id = $2 AND id = ANY($3)",
        &[&org.0, &agent.0, &ids],
    )
    .await
    .map_err(db)?;
    let changes: Vec<IndexChange> = ids
        .iter()
        .map(|id| IndexChange::RemoveMemory {
            memory_id: MemoryId(*id),
        })
        .collect();
    log_changes(tx, &changes).await?;
    Ok(())
}

impl PgStore {
    /// One step of the purge: how many memories it removed (1 for a marker
    /// with none left), 0 when no marker is left.
    pub(super) async fn purge_forgotten(&self, batch: usize) -> Result<usize, StoreError> {
        let store = self;
        let mut session = store.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        let Some(marker) = tx
            .query_opt(
                "SELECT org_id, agent_id, owner_key, before FROM memory_forgets
             ORDER BY org_id, agent_id, owner_key LIMIT 1 FOR UPDATE SKIP LOCKED",
                &[],
            )
            .await
            .map_err(db)?
        else {
            return Ok(0);
        };
        let (org, agent, owner, before): (uuid::Uuid, uuid::Uuid, Vec<u8>, uuid::Uuid) =
            (marker.get(0), marker.get(1), marker.get(2), marker.get(3));
        let limit = i64::try_from(batch).unwrap_or(i64::MAX);
        let rows = tx
        .query(
            "SELECT agent_id, id FROM memories
             WHERE org_id = $1 AND ($2 = 'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid OR agent_id = $2)
               AND ($3 = '\\xffffffffffffffffffffffffffffffff'::bytea OR owner_key = $3)
               AND id < $4
             LIMIT $5 FOR UPDATE SKIP LOCKED",
            &[&org, &agent, &owner, &before, &limit],
        )
        .await
        .map_err(db)?;
        if rows.is_empty() {
            tx.execute(
                "DELETE FROM memory_forgets
             WHERE org_id = $1 AND agent_id = $2 AND owner_key = $3 AND before = $4",
                &[&org, &agent, &owner, &before],
            )
            .await
            .map_err(db)?;
            tx.commit().await.map_err(db)?;
            return Ok(1);
        }
        let org = OrgId(org);
        let mut by_agent: std::collections::BTreeMap<uuid::Uuid, Vec<uuid::Uuid>> =
            std::collections::BTreeMap::new();
        for row in &rows {
            by_agent.entry(row.get(0)).or_default().push(row.get(1));
        }
        for (agent, ids) in by_agent {
            remove(&tx, org, AgentId(agent), &ids).await?;
        }
        tx.commit().await.map_err(db)?;
        Ok(rows.len())
    }
}
