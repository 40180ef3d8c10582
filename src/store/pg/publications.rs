//! Publishing's records on PostgreSQL: the `slug` unique constraint keeps a
//! slug to one publication in the instance, a change holds the
//! publication's row, and every write bumps the org's `cache_versions` row
//! for publications, so each node drops the slug cache entries visitors'
//! requests read within the second (`scale.md` §5). A public thread's
//! publication is a column of `threads`, written with the thread: its
//! count (the cap) and its retention read that index.

use chrono::{DateTime, TimeDelta, Utc};
use confer_actors::{
    AgentId, OrgId, PublicationId, StoreError, StoreFuture, ThreadId, UsageRecord,
};
use tokio_postgres::GenericClient;

use super::records::{PgStore, V, body, db, hold_lock, record, unique_violation};
use super::tools::bump;
use crate::error::ApiError;
use crate::publishing::{OrgSettings, Publication};
use crate::store::port::{OrgSettingsSwap, PublicationRecords, PublicationSwap};
use crate::store::publications::PublicationCreated;
use crate::store::update::Updated;

/// The `cache_versions` kind of publications.
pub const KIND: &str = "publications";

/// The advisory lock (`pg_advisory_xact_lock(PUBLIC_THREADS_LOCK, hash)`)
/// under which a publication's threads are counted and one is added.
const PUBLIC_THREADS_LOCK: i32 = 11;

/// Threads of one publication one retention sweep deletes at most.
const RETENTION_BATCH: i64 = 1_000;

/// The publication `condition` (on `p`) selects.
fn publication_where(condition: &str) -> String {
    format!("SELECT p.v, p.body FROM publications p WHERE {condition}")
}

impl PublicationRecords for PgStore {
    fn org_settings(&self, org: OrgId) -> StoreFuture<OrgSettings> {
        let store = self.clone();
        Box::pin(async move {
            let sql = "SELECT v, body FROM org_settings WHERE org_id = $1";
            Ok(store.one(sql, &[&org.0]).await?.unwrap_or_default())
        })
    }

    fn update_org_settings(
        &self,
        org: OrgId,
        mut change: OrgSettingsSwap,
    ) -> StoreFuture<Updated<OrgSettings, ApiError>> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            // Made first when absent, so two first changes cannot both
            // start from the defaults.
            tx.execute(
                "INSERT INTO org_settings (org_id, v, body) VALUES ($1, $2, $3)
                 ON CONFLICT DO NOTHING",
                &[&org.0, &V, &body(&OrgSettings::default())],
            )
            .await
            .map_err(db)?;
            let row = tx
                .query_one(
                    "SELECT v, body FROM org_settings WHERE org_id = $1 FOR UPDATE",
                    &[&org.0],
                )
                .await
                .map_err(db)?;
            let changed = match change(record(&row)?) {
                Ok(changed) => changed,
                Err(refused) => return Ok(Updated::Refused(refused)),
            };
            tx.execute(
                "UPDATE org_settings SET v = $2, body = $3 WHERE org_id = $1",
                &[&org.0, &V, &body(&changed)],
            )
            .await
            .map_err(db)?;
            tx.commit().await.map_err(db)?;
            Ok(Updated::Stored(changed))
        })
    }

    fn publication(&self, org: OrgId, agent: AgentId) -> StoreFuture<Option<Publication>> {
        let store = self.clone();
        Box::pin(async move {
            let sql = publication_where("p.org_id = $1 AND p.agent_id = $2");
            store.one(&sql, &[&org.0, &agent.0]).await
        })
    }

    fn publications_of(
        &self,
        org: OrgId,
        agents: Vec<AgentId>,
    ) -> StoreFuture<Vec<Option<Publication>>> {
        let store = self.clone();
        Box::pin(async move {
            let ids: Vec<uuid::Uuid> = agents.iter().map(|a| a.0).collect();
            let sql = publication_where("p.org_id = $1 AND p.agent_id = ANY($2)");
            let found: Vec<Publication> = store.all(&sql, &[&org.0, &ids]).await?;
            Ok(agents
                .iter()
                .map(|agent| found.iter().find(|p| p.agent_id == *agent).cloned())
                .collect())
        })
    }

    fn publication_by_slug(&self, slug: String, live: bool) -> StoreFuture<Option<Publication>> {
        let store = self.clone();
        Box::pin(async move {
            let sql = match live {
                false => publication_where("p.slug = $1"),
                true => publication_where(
                    "p.slug = $1 AND EXISTS (SELECT 1 FROM agents a
                     WHERE a.org_id = p.org_id AND a.id = p.agent_id
                       AND a.body->>'deleted_at' IS NULL)",
                ),
            };
            store.one(&sql, &[&slug]).await
        })
    }

    fn create_publication(&self, publication: Publication) -> StoreFuture<PublicationCreated> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let (org, agent) = (publication.org_id, publication.agent_id);
            let taken = tx
                .query_opt(
                    "SELECT 1 FROM publications WHERE org_id = $1 AND agent_id = $2",
                    &[&org.0, &agent.0],
                )
                .await
                .map_err(db)?;
            if taken.is_some() {
                return Ok(PublicationCreated::AlreadyPublished);
            }
            let inserted = tx
                .execute(
                    "INSERT INTO publications (org_id, agent_id, id, slug, v, body)
                     VALUES ($1, $2, $3, $4, $5, $6)",
                    &[
                        &org.0,
                        &agent.0,
                        &publication.id.0,
                        &publication.slug,
                        &V,
                        &body(&publication),
                    ],
                )
                .await;
            match inserted {
                Ok(_) => {}
                // The agent's key is checked above, so a racing creation
                // for the same agent is the one case this misreads: it is
                // told the slug is taken, and a retry says published.
                Err(error) if unique_violation(&error) => {
                    return Ok(PublicationCreated::SlugTaken);
                }
                Err(error) => return Err(db(error)),
            }
            bump(&tx, org, KIND).await?;
            tx.commit().await.map_err(db)?;
            Ok(PublicationCreated::Stored(Box::new(publication)))
        })
    }

    fn update_publication(
        &self,
        org: OrgId,
        agent: AgentId,
        mut change: PublicationSwap,
    ) -> StoreFuture<Updated<Publication, ApiError>> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let sql = publication_where("p.org_id = $1 AND p.agent_id = $2 FOR UPDATE");
            let Some(row) = tx.query_opt(&sql, &[&org.0, &agent.0]).await.map_err(db)? else {
                return Ok(Updated::Gone);
            };
            let stored: Publication = record(&row)?;
            let slug = stored.slug.clone();
            let mut changed = match change(stored) {
                Ok(changed) => changed,
                Err(refused) => return Ok(Updated::Refused(refused)),
            };
            changed.slug = slug;
            tx.execute(
                "UPDATE publications SET v = $3, body = $4 WHERE org_id = $1 AND agent_id = $2",
                &[&org.0, &agent.0, &V, &body(&changed)],
            )
            .await
            .map_err(db)?;
            bump(&tx, org, KIND).await?;
            tx.commit().await.map_err(db)?;
            Ok(Updated::Stored(changed))
        })
    }

    fn delete_publication(&self, org: OrgId, agent: AgentId) -> StoreFuture<Option<Publication>> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let row = tx
                .query_opt(
                    "DELETE FROM publications WHERE org_id = $1 AND agent_id = $2
                     RETURNING v, body",
                    &[&org.0, &agent.0],
                )
                .await
                .map_err(db)?;
            let Some(row) = row else { return Ok(None) };
            let deleted: Publication = record(&row)?;
            bump(&tx, org, KIND).await?;
            tx.commit().await.map_err(db)?;
            Ok(Some(deleted))
        })
    }

    fn publication_tokens(&self, publication: PublicationId, day: u32) -> StoreFuture<u64> {
        let store = self.clone();
        Box::pin(async move {
            let day = i32::try_from(day).unwrap_or(i32::MAX);
            let session = store.session().await?;
            let row = session
                .db()
                .query_opt(
                    "SELECT tokens FROM publication_days WHERE publication_id = $1 AND day = $2",
                    &[&publication.0, &day],
                )
                .await
                .map_err(db)?;
            Ok(row.map_or(0, |row| u64::try_from(row.get::<_, i64>(0)).unwrap_or(0)))
        })
    }

    fn last_input_tokens(&self, org: OrgId, thread: ThreadId) -> StoreFuture<u64> {
        let store = self.clone();
        Box::pin(async move {
            let sql = "SELECT v, body FROM usage_records WHERE org_id = $1 AND thread_id = $2
                       ORDER BY created_at DESC LIMIT 1";
            let last: Option<UsageRecord> = store.one(sql, &[&org.0, &thread.0]).await?;
            Ok(last.map_or(0, |usage| usage.input_tokens))
        })
    }

    fn forget_publication_threads(&self, _publication: PublicationId) -> StoreFuture<()> {
        // Nothing is kept beside the threads: they count against, and are
        // swept by, a publication that exists.
        Box::pin(async { Ok(()) })
    }
}

/// Whether `publication` may take one more thread of the `max` it may
/// hold, and whether `visitor` may make one more of it
/// ([`crate::publishing::MAX_THREADS_PER_VISITOR`]), asked inside the
/// creating transaction: the lock makes two creations count one after
/// the other.
pub(super) async fn has_room(
    tx: &impl GenericClient,
    publication: PublicationId,
    (max, visitor): (u64, &str),
) -> Result<(bool, bool), StoreError> {
    hold_lock(tx, PUBLIC_THREADS_LOCK, publication.0).await?;
    let row = tx
        .query_one(
            "SELECT count(*), count(*) FILTER (WHERE created_by = $2)
             FROM threads WHERE publication_id = $1",
            &[&publication.0, &visitor],
        )
        .await
        .map_err(db)?;
    let (held, theirs): (i64, i64) = (row.get(0), row.get(1));
    Ok((
        u64::try_from(held).unwrap_or(u64::MAX) < max,
        usize::try_from(theirs).unwrap_or(usize::MAX) < crate::publishing::MAX_THREADS_PER_VISITOR,
    ))
}

impl PgStore {
    /// Deletes the threads of publications with a retention whose last
    /// message (their creation before the first) is older than it, at
    /// most [`RETENTION_BATCH`] per publication per sweep; how many.
    pub(super) async fn sweep_public_retention(
        &self,
        now: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let publications: Vec<Publication> = self
            .all(
                &publication_where(
                    "(p.body->>'retention_days') IS NOT NULL ORDER BY p.org_id, p.agent_id",
                ),
                &[],
            )
            .await?;
        let mut deleted = 0;
        for publication in publications {
            let Some(days) = publication.retention_days else {
                continue;
            };
            let cutoff = now - TimeDelta::days(i64::from(days));
            let session = self.session().await?;
            let rows = session
                .db()
                .query(
                    "SELECT t.id FROM threads t
                     LEFT JOIN messages m ON m.thread_id = t.id AND m.seq = t.last_seq
                     WHERE t.publication_id = $1 AND t.created_at < $2
                       AND coalesce((m.body->>'created_at')::timestamptz, t.created_at) < $2
                     LIMIT $3",
                    &[&publication.id.0, &cutoff, &RETENTION_BATCH],
                )
                .await
                .map_err(db)?;
            drop(session);
            for row in rows {
                let thread = ThreadId(row.get(0));
                if self.remove_thread(publication.org_id, thread).await? {
                    deleted += 1;
                }
            }
        }
        Ok(deleted)
    }
}
