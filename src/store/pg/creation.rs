//! A thread's creation on PostgreSQL, in one transaction: its project
//! share-locked (a project delete waits, then detaches it), its
//! `Idempotency-Key` taken (two racing repeats make one thread), its
//! `created_at` made unique in the org, its owner participant stored.

use chrono::Utc;
use confer_actors::{Participant, StoreError, Thread, ThreadId};
use tokio_postgres::Transaction;

use super::agents::live_project;
use super::records::{PgStore, V, body, db, jsonb, micro, next_micro};
use super::threads::shard_of;
use crate::store::threads::Created;

/// How long a creation's key is remembered.
fn keep_keys() -> chrono::TimeDelta {
    chrono::TimeDelta::hours(confer_actors::idempotency::KEEP_FOR_HOURS)
}

/// Takes the key for `thread`, unless a creation under it is fresh:
/// then the thread it made, or `KeyReused` for another request.
async fn take_key(
    tx: &Transaction<'_>,
    thread: &Thread,
    key: &[u8; 32],
    request: &str,
) -> Result<Option<Created>, StoreError> {
    let now = Utc::now();
    let taken = tx
        .query_opt(
            "INSERT INTO keyed_threads (org_id, key_hash, request, thread_id, created_at)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (org_id, key_hash) DO UPDATE
             SET request = EXCLUDED.request, thread_id = EXCLUDED.thread_id,
                 created_at = EXCLUDED.created_at
             WHERE keyed_threads.created_at < $6
             RETURNING 1",
            &[
                &thread.org_id.0,
                &key.as_slice(),
                &request,
                &thread.id.0,
                &now,
                &(now - keep_keys()),
            ],
        )
        .await
        .map_err(db)?;
    if taken.is_some() {
        return Ok(None);
    }
    let seen = tx
        .query_one(
            "SELECT request, thread_id FROM keyed_threads WHERE org_id = $1 AND key_hash = $2",
            &[&thread.org_id.0, &key.as_slice()],
        )
        .await
        .map_err(db)?;
    let seen_request: String = seen.get("request");
    Ok(Some(if seen_request == request {
        Created::Repeat(ThreadId(seen.get("thread_id")))
    } else {
        Created::KeyReused
    }))
}

/// Inserts `stored` at its `created_at`, or the first later microsecond
/// free in its org.
async fn insert(tx: &Transaction<'_>, stored: &mut Thread) -> Result<(), StoreError> {
    let shard = shard_of(stored).sql();
    stored.created_at = micro(stored.created_at);
    loop {
        stored.updated_at = stored.created_at;
        let inserted = tx
            .execute(
                "INSERT INTO threads
                   (org_id, id, agent_id, created_at, created_by, listed, shard,
                    project_id, publication_id, v, body)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
                 ON CONFLICT (org_id, created_at) DO NOTHING",
                &[
                    &stored.org_id.0,
                    &stored.id.0,
                    &stored.agent_id.0,
                    &stored.created_at,
                    &stored.created_by,
                    &stored.origin.is_none(),
                    &shard,
                    &stored.project_id.map(|p| p.0),
                    &stored.publication_id.map(|p| p.0),
                    &V,
                    &jsonb(&*stored)?,
                ],
            )
            .await
            .map_err(db)?;
        if inserted == 1 {
            return Ok(());
        }
        stored.created_at = next_micro(stored.created_at);
    }
}

impl PgStore {
    /// See `ThreadRecords::create_thread_keyed`.
    pub(super) async fn create(
        &self,
        thread: Thread,
        owner: Option<Participant>,
        keyed: Option<([u8; 32], String)>,
    ) -> Result<Created, StoreError> {
        let mut session = self.session().await?;
        let tx = session.client.transaction().await.map_err(db)?;
        let max_public = self
            .public_max_threads
            .load(std::sync::atomic::Ordering::Relaxed);
        if let Some(publication) = thread.publication_id {
            let (public, visitor) =
                super::publications::has_room(&tx, publication, (max_public, &thread.created_by))
                    .await?;
            match (public, visitor) {
                (false, _) => return Ok(Created::PublicationFull),
                (_, false) => return Ok(Created::VisitorFull),
                _ => {}
            }
        }
        if let Some(project) = thread.project_id
            && !live_project(&tx, thread.org_id, project).await?
        {
            return Ok(Created::ProjectGone);
        }
        if let Some((key, request)) = &keyed
            && let Some(seen) = take_key(&tx, &thread, key, request).await?
        {
            return Ok(seen);
        }
        let mut stored = thread;
        insert(&tx, &mut stored).await?;
        if let Some(mut owner) = owner {
            owner.joined_at = micro(owner.joined_at);
            tx.execute(
                "INSERT INTO participants (thread_id, user_id, v, body) VALUES ($1, $2, $3, $4)",
                &[&stored.id.0, &owner.user_id, &V, &body(&owner)],
            )
            .await
            .map_err(db)?;
        }
        tx.commit().await.map_err(db)?;
        Ok(Created::New(Box::new(stored)))
    }
}
