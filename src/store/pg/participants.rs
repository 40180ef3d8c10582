//! Participants and thread listings on PostgreSQL. An add locks the
//! thread's row first: adds to one thread are serialized, so a cap is
//! counted exactly and two adds cannot both take the last place.

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, OrgId, Participant, StoreFuture, Thread, ThreadId};

use super::records::{PgStore, V, body, db, micro, page_fetch, record};
use crate::store::Page;
use crate::store::participants::ParticipantPut;

impl PgStore {
    /// See `ThreadRecords::list_threads`.
    pub(super) fn threads_page(
        &self,
        org: OrgId,
        agent: AgentId,
        user: Option<String>,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> StoreFuture<Page<Thread>> {
        let store = self.clone();
        Box::pin(async move {
            store
                .thread_page(
                    "SELECT v, body FROM threads t
                     WHERE org_id = $1 AND agent_id = $2
                       AND ($3::timestamptz IS NULL OR created_at < $3)
                       AND listed
                       AND ($4::text IS NULL OR created_by = $4 OR EXISTS
                            (SELECT 1 FROM participants p
                             WHERE p.thread_id = t.id AND p.user_id = $4))
                     ORDER BY created_at DESC LIMIT $5",
                    &[&org.0, &agent.0, &before, &user, &page_fetch(limit)],
                    limit,
                )
                .await
        })
    }

    /// See `ThreadRecords::child_threads`.
    pub(super) fn children_page(
        &self,
        org: OrgId,
        parent: ThreadId,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> StoreFuture<Page<Thread>> {
        let store = self.clone();
        Box::pin(async move {
            store
                .thread_page(
                    "SELECT v, body FROM threads
                     WHERE org_id = $1 AND body ? 'delegation'
                       AND body -> 'delegation' ->> 'parent_thread_id' = $2
                       AND ($3::timestamptz IS NULL OR created_at < $3)
                     ORDER BY created_at DESC LIMIT $4",
                    &[&org.0, &parent.to_string(), &before, &page_fetch(limit)],
                    limit,
                )
                .await
        })
    }

    /// See `ThreadRecords::put_participant`.
    pub(super) fn store_participant(
        &self,
        org: OrgId,
        thread: ThreadId,
        mut participant: Participant,
        cap: Option<usize>,
    ) -> StoreFuture<ParticipantPut> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let live = tx
                .query_opt(
                    "SELECT 1 FROM threads WHERE org_id = $1 AND id = $2 FOR UPDATE",
                    &[&org.0, &thread.0],
                )
                .await
                .map_err(db)?;
            if live.is_none() {
                return Ok(ParticipantPut::ThreadGone);
            }
            let previous: Option<Participant> = tx
                .query_opt(
                    "SELECT v, body FROM participants WHERE thread_id = $1 AND user_id = $2",
                    &[&thread.0, &participant.user_id],
                )
                .await
                .map_err(db)?
                .map(|row| record(&row))
                .transpose()?;
            if let (Some(cap), None) = (cap, &previous) {
                let count: i64 = tx
                    .query_one(
                        "SELECT count(*) FROM participants WHERE thread_id = $1",
                        &[&thread.0],
                    )
                    .await
                    .map_err(db)?
                    .get(0);
                if usize::try_from(count).unwrap_or(usize::MAX) >= cap {
                    return Ok(ParticipantPut::Full);
                }
            }
            participant.joined_at = match &previous {
                Some(previous) => previous.joined_at,
                None => micro(participant.joined_at),
            };
            tx.execute(
                "INSERT INTO participants (thread_id, user_id, v, body) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (thread_id, user_id) DO UPDATE SET v = EXCLUDED.v, body = EXCLUDED.body",
                &[&thread.0, &participant.user_id, &V, &body(&participant)],
            )
            .await
            .map_err(db)?;
            tx.commit().await.map_err(db)?;
            Ok(ParticipantPut::Stored {
                participant,
                replaced: previous.is_some(),
            })
        })
    }

    /// See `ThreadRecords::participants`: by user id in byte order, as
    /// sled's keys sort.
    pub(super) fn thread_participants(&self, thread: ThreadId) -> StoreFuture<Vec<Participant>> {
        let store = self.clone();
        Box::pin(async move {
            store
                .all(
                    "SELECT v, body FROM participants WHERE thread_id = $1 ORDER BY user_id COLLATE \"C\"",
                    &[&thread.0],
                )
                .await
        })
    }

    /// See `ThreadRecords::remove_participant`. As on sled, the row goes
    /// by thread and user: the caller found the thread in its org.
    pub(super) fn drop_participant(&self, thread: ThreadId, user_id: String) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(async move {
            let removed = store
                .session()
                .await?
                .client
                .execute(
                    "DELETE FROM participants WHERE thread_id = $1 AND user_id = $2",
                    &[&thread.0, &user_id],
                )
                .await
                .map_err(db)?;
            Ok(removed == 1)
        })
    }
}
