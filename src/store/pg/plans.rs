//! Plans on PostgreSQL. A creation locks its thread's row, so the
//! per-thread limit is counted exactly and a thread deleted first refuses
//! it; a change holds the plan's row, so a concurrent delete wins.

use confer_actors::{OrgId, PlanId, StoreError, StoreFuture, ThreadId};
use tokio_postgres::Transaction;

use super::records::{PgStore, V, body, db, record};
use crate::plans::{MAX_PLANS_PER_THREAD, Plan, PlanError};
use crate::store::plans::{PlanCreate, PlanDelete};
use crate::store::port::{PlanRecords, PlanSwap};
use crate::store::update::Updated;

/// The plan, its row held until `tx` ends: a change or delete waits for
/// (and sees) a concurrent one.
async fn locked(tx: &Transaction<'_>, org: OrgId, id: PlanId) -> Result<Option<Plan>, StoreError> {
    tx.query_opt(
        "SELECT v, body FROM plans WHERE org_id = $1 AND id = $2 FOR UPDATE",
        &[&org.0, &id.0],
    )
    .await
    .map_err(db)?
    .map(|row| record(&row))
    .transpose()
}

pub(super) fn version(plan: &Plan) -> i64 {
    i64::try_from(plan.version).unwrap_or(i64::MAX)
}

impl PlanRecords for PgStore {
    fn create_plan(&self, plan: Plan) -> StoreFuture<Result<(), PlanCreate>> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let live = tx
                .query_opt(
                    "SELECT 1 FROM threads WHERE org_id = $1 AND id = $2 FOR UPDATE",
                    &[&plan.org_id.0, &plan.thread_id.0],
                )
                .await
                .map_err(db)?;
            if live.is_none() {
                return Ok(Err(PlanCreate::ThreadGone));
            }
            let held: i64 = tx
                .query_one(
                    "SELECT count(*) FROM plans WHERE thread_id = $1",
                    &[&plan.thread_id.0],
                )
                .await
                .map_err(db)?
                .get(0);
            if usize::try_from(held).unwrap_or(usize::MAX) >= MAX_PLANS_PER_THREAD {
                return Ok(Err(PlanCreate::ThreadFull));
            }
            tx.execute(
                "INSERT INTO plans (org_id, id, thread_id, created_at, version, v, body)
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
                &[
                    &plan.org_id.0,
                    &plan.id.0,
                    &plan.thread_id.0,
                    &plan.created_at,
                    &version(&plan),
                    &V,
                    &body(&plan),
                ],
            )
            .await
            .map_err(db)?;
            tx.commit().await.map_err(db)?;
            Ok(Ok(()))
        })
    }

    fn plan(&self, org: OrgId, id: PlanId) -> StoreFuture<Option<Plan>> {
        let store = self.clone();
        Box::pin(async move {
            store
                .one(
                    "SELECT v, body FROM plans WHERE org_id = $1 AND id = $2",
                    &[&org.0, &id.0],
                )
                .await
        })
    }

    fn thread_plans(&self, org: OrgId, thread: ThreadId) -> StoreFuture<Vec<Plan>> {
        let store = self.clone();
        Box::pin(async move {
            store
                .all(
                    "SELECT v, body FROM plans WHERE org_id = $1 AND thread_id = $2
                     ORDER BY created_at DESC, id DESC",
                    &[&org.0, &thread.0],
                )
                .await
        })
    }

    fn update_plan(
        &self,
        org: OrgId,
        id: PlanId,
        mut change: PlanSwap,
    ) -> StoreFuture<Updated<Plan, PlanError>> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let Some(plan) = locked(&tx, org, id).await? else {
                return Ok(Updated::Gone);
            };
            let changed = match change(plan) {
                Ok(plan) => plan,
                Err(refused) => return Ok(Updated::Refused(refused)),
            };
            tx.execute(
                "UPDATE plans SET version = $3, v = $4, body = $5 WHERE org_id = $1 AND id = $2",
                &[&org.0, &id.0, &version(&changed), &V, &body(&changed)],
            )
            .await
            .map_err(db)?;
            tx.commit().await.map_err(db)?;
            Ok(Updated::Stored(changed))
        })
    }

    fn delete_plan(&self, org: OrgId, id: PlanId, expect: Option<u64>) -> StoreFuture<PlanDelete> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let Some(plan) = locked(&tx, org, id).await? else {
                return Ok(PlanDelete::Gone);
            };
            if expect.is_some_and(|v| v != plan.version) {
                return Ok(PlanDelete::Stale(Box::new(plan)));
            }
            tx.execute(
                "DELETE FROM plans WHERE org_id = $1 AND id = $2",
                &[&org.0, &id.0],
            )
            .await
            .map_err(db)?;
            tx.commit().await.map_err(db)?;
            Ok(PlanDelete::Deleted)
        })
    }
}
