//! Agents' scheduled tasks on PostgreSQL (migration V14). A replacement
//! holds the org's advisory lock (its cap is exact across nodes) and the
//! agent's rows; a change holds the task's row. Firing (`fire_due`) is
//! done by the node that owns a task's shard, its message thread's: it
//! takes the due rows with `FOR UPDATE SKIP LOCKED`, so two nodes never
//! fire one task, and each fired slot takes its `job_runs` row in the same
//! transaction, so no slot fires twice (`scale.md` §5). Runners are not
//! kept here yet: a run action is refused by its route, and one that
//! reaches a firing is a recorded `runner_deleted` skip.

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, OrgId, ScheduleId, StoreError, StoreFuture, ThreadId};
use tokio_postgres::GenericClient;

use super::records::{PgStore, V, body, db, record};
use crate::cluster::{NodeId, Shard};
use crate::scheduler::due::{Begun, begin, disable, plan_sends, skip_all};
use crate::scheduler::{OutboxSend, RecentFiring, ScheduledTask, TaskAction, slot_name};
use crate::store::port::schedules::{Replaced, ScheduleRecords, TaskBuild, TaskChange};
use crate::store::schedules::ReplaceRefused;

/// The `job_runs` kind of a fired slot.
const SLOT_KIND: &str = "schedule";

/// The shard whose owner fires `task`: its message thread's, or (a run
/// action) its own id's.
pub(crate) fn shard_of(task: &ScheduledTask) -> Shard {
    match &task.action {
        TaskAction::Message { thread_id, .. } => Shard::of(*thread_id),
        TaskAction::Run { .. } => Shard::of(ThreadId(task.id.0)),
    }
}

/// Writes `task` over its row (or as a new one).
async fn save(client: &impl GenericClient, task: &ScheduledTask) -> Result<(), StoreError> {
    client
        .execute(
            "INSERT INTO scheduled_tasks (org_id, agent_id, id, shard, next_fire_at, v, body)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (org_id, agent_id, id) DO UPDATE SET shard = EXCLUDED.shard,
                next_fire_at = EXCLUDED.next_fire_at, v = EXCLUDED.v, body = EXCLUDED.body",
            &[
                &task.org_id.0,
                &task.agent_id.0,
                &task.id.0,
                &shard_of(task).sql(),
                &task.next_fire_at,
                &V,
                &body(task),
            ],
        )
        .await
        .map_err(db)?;
    Ok(())
}

/// An agent's tasks, every one (its runners' triggers too), held for the
/// caller's transaction, in creation order.
async fn held_tasks(
    client: &impl GenericClient,
    org: OrgId,
    agent: AgentId,
) -> Result<Vec<ScheduledTask>, StoreError> {
    let rows = client
        .query(
            "SELECT v, body FROM scheduled_tasks WHERE org_id = $1 AND agent_id = $2
             ORDER BY id FOR UPDATE",
            &[&org.0, &agent.0],
        )
        .await
        .map_err(db)?;
    rows.iter().map(record).collect()
}

impl ScheduleRecords for PgStore {
    fn scheduled_tasks(&self, org: OrgId, agent: AgentId) -> StoreFuture<Vec<ScheduledTask>> {
        let store = self.clone();
        Box::pin(async move {
            let tasks: Vec<ScheduledTask> = store
                .all(
                    "SELECT v, body FROM scheduled_tasks WHERE org_id = $1 AND agent_id = $2
                     ORDER BY id",
                    &[&org.0, &agent.0],
                )
                .await?;
            Ok(tasks
                .into_iter()
                .filter(|t| t.runner_trigger.is_none())
                .collect())
        })
    }

    fn replace_scheduled_tasks(
        &self,
        org: OrgId,
        agent: AgentId,
        max_per_org: usize,
        build: TaskBuild,
    ) -> StoreFuture<Replaced> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            // One replacement per org at a time: the count below stays true
            // until this transaction ends.
            tx.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended('schedules:' || $1::uuid::text, 0))",
                &[&org.0],
            )
            .await
            .map_err(db)?;
            let own: Vec<ScheduledTask> = held_tasks(&tx, org, agent)
                .await?
                .into_iter()
                .filter(|t| t.runner_trigger.is_none())
                .collect();
            let new = match build(&own) {
                Ok(new) => new,
                Err(refusal) => return Ok(Err(Ok(refusal))),
            };
            let in_org: i64 = tx
                .query_one(
                    "SELECT count(*) FROM scheduled_tasks WHERE org_id = $1",
                    &[&org.0],
                )
                .await
                .map_err(db)?
                .get(0);
            if in_org as usize - own.len() + new.len() > max_per_org {
                return Ok(Err(Err(ReplaceRefused::OrgFull { max: max_per_org })));
            }
            let gone: Vec<uuid::Uuid> = own
                .iter()
                .filter(|old| !new.iter().any(|n| n.id == old.id))
                .map(|old| old.id.0)
                .collect();
            tx.execute(
                "DELETE FROM scheduled_tasks
                 WHERE org_id = $1 AND agent_id = $2 AND id = ANY($3)",
                &[&org.0, &agent.0, &gone],
            )
            .await
            .map_err(db)?;
            for task in &new {
                save(&tx, task).await?;
            }
            tx.commit().await.map_err(db)?;
            Ok(Ok(new))
        })
    }

    fn delete_scheduled_tasks(&self, org: OrgId, agent: AgentId) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            let sql = "DELETE FROM scheduled_tasks WHERE org_id = $1 AND agent_id = $2";
            store.execute(sql, &[&org.0, &agent.0]).await.map(drop)
        })
    }

    fn change_scheduled_task(
        &self,
        org: OrgId,
        agent: AgentId,
        id: ScheduleId,
        change: TaskChange,
    ) -> StoreFuture<Option<ScheduledTask>> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let Some(row) = tx
                .query_opt(
                    "SELECT v, body FROM scheduled_tasks
                     WHERE org_id = $1 AND agent_id = $2 AND id = $3 FOR UPDATE",
                    &[&org.0, &agent.0, &id.0],
                )
                .await
                .map_err(db)?
            else {
                return Ok(None);
            };
            let mut task: ScheduledTask = record(&row)?;
            change(&mut task);
            task.version += 1;
            save(&tx, &task).await?;
            tx.commit().await.map_err(db)?;
            Ok(Some(task))
        })
    }

    fn remove_outbox_send(&self, send: OutboxSend) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            let sql = "DELETE FROM schedule_outbox WHERE schedule_id = $1 AND slot = $2";
            store
                .execute(sql, &[&send.schedule_id.0, &send.slot])
                .await
                .map(drop)
        })
    }
}

impl PgStore {
    /// Fires the tasks of `shards` due at `now`, at most `limit`, in one
    /// transaction: each task's slots become outbox sends (a slot whose
    /// `job_runs` row exists is not sent again) and the task moves to its
    /// next slot. Returns how many sends were stored.
    pub async fn fire_due_schedules(
        &self,
        node: NodeId,
        shards: &[Shard],
        now: DateTime<Utc>,
        limit: i64,
    ) -> Result<usize, StoreError> {
        let shards: Vec<i16> = shards.iter().map(|s| s.sql()).collect();
        let mut session = self.session().await?;
        let tx = session.transaction().await.map_err(db)?;
        let due = tx
            .query(
                "SELECT v, body FROM scheduled_tasks
                 WHERE shard = ANY($1) AND next_fire_at <= $2
                 ORDER BY next_fire_at LIMIT $3 FOR UPDATE SKIP LOCKED",
                &[&shards, &now, &limit],
            )
            .await
            .map_err(db)?;
        let mut sent = 0;
        for row in &due {
            let task: ScheduledTask = record(row)?;
            let (org, agent) = (task.org_id, task.agent_id);
            let live = super::agents::agent(tx.db(), org, agent)
                .await?
                .is_some_and(|a| !a.is_deleted());
            if !live {
                tx.execute(
                    "DELETE FROM scheduled_tasks WHERE org_id = $1 AND agent_id = $2 AND id = $3",
                    &[&org.0, &agent.0, &task.id.0],
                )
                .await
                .map_err(db)?;
                continue;
            }
            let (mut firing, fire) = match begin(&task, now) {
                Begun::NotDue => continue,
                Begun::Unparsable => {
                    let mut stopped = task.clone();
                    disable(&mut stopped);
                    stopped.version += 1;
                    save(&*tx, &stopped).await?;
                    continue;
                }
                Begun::Due { firing, fire } => (firing, fire),
            };
            match &task.action {
                TaskAction::Message { thread_id, content } => {
                    let usable = super::threads::thread(tx.db(), org, *thread_id)
                        .await?
                        .is_some_and(|t| t.agent_id == agent && t.origin.is_none());
                    plan_sends(&task, *thread_id, content, usable, &fire, &mut firing);
                }
                TaskAction::Run { .. } => {
                    skip_all(&mut firing, &fire, "runner_deleted");
                    disable(&mut firing.task);
                }
            }
            let mut fired = Vec::with_capacity(firing.sends.len());
            for send in &firing.sends {
                let slot = format!("{}/{}", task.id, slot_name(send.slot));
                let taken = tx
                    .execute(
                        "INSERT INTO job_runs (kind, slot, job_id, node_id) VALUES ($1, $2, $3, $4)
                         ON CONFLICT (kind, slot) DO NOTHING",
                        &[&SLOT_KIND, &slot, &task.id.0, &node.0],
                    )
                    .await
                    .map_err(db)?;
                if taken == 0 {
                    continue; // fired already: never twice
                }
                tx.execute(
                    "INSERT INTO schedule_outbox (schedule_id, slot, shard, v, body)
                     VALUES ($1, $2, $3, $4, $5)",
                    &[
                        &task.id.0,
                        &send.slot,
                        &Shard::of(send.thread_id).sql(),
                        &V,
                        &body(send),
                    ],
                )
                .await
                .map_err(db)?;
                fired.push(RecentFiring::fired(send.slot, None));
            }
            sent += fired.len();
            firing.task.record(fired);
            save(&*tx, &firing.task).await?;
        }
        tx.commit().await.map_err(db)?;
        Ok(sent)
    }

    /// The outbox's sends to threads of `shards`, oldest slot first.
    pub async fn schedule_outbox(
        &self,
        shards: &[Shard],
        limit: i64,
    ) -> Result<Vec<OutboxSend>, StoreError> {
        let shards: Vec<i16> = shards.iter().map(|s| s.sql()).collect();
        self.all(
            "SELECT v, body FROM schedule_outbox WHERE shard = ANY($1) ORDER BY slot LIMIT $2",
            &[&shards, &limit],
        )
        .await
    }
}
