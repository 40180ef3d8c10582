//! Managed OAuth flows on PostgreSQL (`scale.md` §5: "OAuth flows live in
//! `oauth_flows`, used once, since callbacks may hit any node"). The rows
//! are opaque here: the flow is sealed by its owner (`tools::mcp::oauth`)
//! and found by digests of its state and ticket. Each step holds the row
//! it reads, so a ticket is used once and a state finishes once, whichever
//! nodes the two requests reach.

use std::time::Duration;

use confer_actors::{OrgId, StoreError};

use super::super::records::{PgStore, db};

/// A flow to keep.
pub struct NewFlow {
    pub state_hash: [u8; 32],
    pub ticket_hash: [u8; 32],
    pub org: OrgId,
    /// The owner's part of its token key (`TokenOwner::key_part`).
    pub owner: [u8; 32],
    pub sealed: String,
}

/// How a step on a flow ended.
#[derive(Debug)]
pub enum FlowStep<T, R> {
    /// No such flow (never made, used, or cancelled).
    Missing,
    /// Past its time: dropped now.
    Expired,
    /// The flow's owner refused the step (`R`); the flow is kept as it was.
    Refused(R),
    Done(T),
}

/// The bounds a new flow is kept within.
pub struct FlowBounds {
    pub ttl: Duration,
    pub per_owner: usize,
    pub all: usize,
}

fn seconds(ttl: Duration) -> f64 {
    ttl.as_secs_f64()
}

impl PgStore {
    /// Keeps `flow` after dropping expired flows and, past the bounds,
    /// the owner's (then anyone's) oldest.
    pub async fn put_oauth_flow(
        &self,
        flow: NewFlow,
        bounds: FlowBounds,
    ) -> Result<(), StoreError> {
        let mut session = self.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        let keep_owner = i64::try_from(bounds.per_owner.saturating_sub(1)).unwrap_or(i64::MAX);
        let keep_all = i64::try_from(bounds.all.saturating_sub(1)).unwrap_or(i64::MAX);
        tx.execute(
            "DELETE FROM oauth_flows WHERE created_at < now() - $1 * interval '1 second'",
            &[&seconds(bounds.ttl)],
        )
        .await
        .map_err(db)?;
        tx.execute(
            "DELETE FROM oauth_flows WHERE state_hash IN (
                SELECT state_hash FROM oauth_flows WHERE org_id = $1 AND owner = $2
                ORDER BY created_at DESC OFFSET $3)",
            &[&flow.org.0, &flow.owner.as_slice(), &keep_owner],
        )
        .await
        .map_err(db)?;
        tx.execute(
            "DELETE FROM oauth_flows WHERE state_hash IN (
                SELECT state_hash FROM oauth_flows ORDER BY created_at DESC OFFSET $1)",
            &[&keep_all],
        )
        .await
        .map_err(db)?;
        tx.execute(
            "INSERT INTO oauth_flows (state_hash, ticket_hash, org_id, owner, sealed)
             VALUES ($1, $2, $3, $4, $5)",
            &[
                &flow.state_hash.as_slice(),
                &flow.ticket_hash.as_slice(),
                &flow.org.0,
                &flow.owner.as_slice(),
                &flow.sealed,
            ],
        )
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)
    }

    /// Uses the ticket of a flow: `decide` gets the flow's state digest
    /// and sealed text and answers the flow sealed anew (and `T`), or
    /// refuses; the ticket is then gone.
    pub async fn begin_oauth_flow<T, R>(
        &self,
        ticket_hash: [u8; 32],
        ttl: Duration,
        decide: impl FnOnce(&[u8], &str) -> Result<(String, T), R>,
    ) -> Result<FlowStep<T, R>, StoreError> {
        let mut session = self.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        let row = tx
            .query_opt(
                "SELECT state_hash, sealed,
                        created_at >= now() - $2 * interval '1 second' AS fresh
                 FROM oauth_flows WHERE ticket_hash = $1 FOR UPDATE",
                &[&ticket_hash.as_slice(), &seconds(ttl)],
            )
            .await
            .map_err(db)?;
        let Some(row) = row else {
            return Ok(FlowStep::Missing);
        };
        let state_hash: Vec<u8> = row.get(0);
        if !row.get::<_, bool>(2) {
            drop_flow(&tx, &state_hash).await?;
            tx.commit().await.map_err(db)?;
            return Ok(FlowStep::Expired);
        }
        let (sealed, value) = match decide(&state_hash, row.get(1)) {
            Ok(decided) => decided,
            Err(refused) => return Ok(FlowStep::Refused(refused)),
        };
        tx.execute(
            "UPDATE oauth_flows SET ticket_hash = NULL, sealed = $2 WHERE state_hash = $1",
            &[&state_hash, &sealed],
        )
        .await
        .map_err(db)?;
        tx.commit().await.map_err(db)?;
        Ok(FlowStep::Done(value))
    }

    /// Finishes the flow of a state: `check` gets the sealed text and
    /// answers `T` (the flow is then deleted) or refuses (it is kept).
    pub async fn finish_oauth_flow<T, R>(
        &self,
        state_hash: [u8; 32],
        ttl: Duration,
        check: impl FnOnce(&str) -> Result<T, R>,
    ) -> Result<FlowStep<T, R>, StoreError> {
        let mut session = self.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        let row = tx
            .query_opt(
                "SELECT sealed, created_at >= now() - $2 * interval '1 second'
                 FROM oauth_flows WHERE state_hash = $1 FOR UPDATE",
                &[&state_hash.as_slice(), &seconds(ttl)],
            )
            .await
            .map_err(db)?;
        let Some(row) = row else {
            return Ok(FlowStep::Missing);
        };
        drop_flow(&tx, &state_hash).await?;
        if !row.get::<_, bool>(1) {
            tx.commit().await.map_err(db)?;
            return Ok(FlowStep::Expired);
        }
        match check(row.get(0)) {
            Ok(value) => {
                tx.commit().await.map_err(db)?;
                Ok(FlowStep::Done(value))
            }
            // Rolled back: the flow stays for the browser that began it.
            Err(refused) => Ok(FlowStep::Refused(refused)),
        }
    }

    /// Flows waiting now (not expired).
    pub async fn pending_oauth_flows(&self, ttl: Duration) -> Result<u64, StoreError> {
        let session = self.session().await?;
        let row = session
            .db()
            .query_one(
                "SELECT count(*) FROM oauth_flows
                 WHERE created_at >= now() - $1 * interval '1 second'",
                &[&seconds(ttl)],
            )
            .await
            .map_err(db)?;
        Ok(u64::try_from(row.get::<_, i64>(0)).unwrap_or_default())
    }
}

async fn drop_flow(
    tx: &tokio_postgres::Transaction<'_>,
    state_hash: &[u8],
) -> Result<(), StoreError> {
    tx.execute(
        "DELETE FROM oauth_flows WHERE state_hash = $1",
        &[&state_hash],
    )
    .await
    .map_err(db)?;
    Ok(())
}
