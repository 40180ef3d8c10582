//! Threads, their listed messages and context, and usage records on
//! PostgreSQL. A thread's row carries its shard (`scale.md` §3: a
//! delegate child takes its root's) and the counters sled keeps in trees
//! of their own; `created_at` is unique within the org through a unique
//! index, a taken instant retried one microsecond later.

use chrono::{DateTime, Utc};
use confer_actors::{
    AgentId, ContextMessage, Message, OrgId, Participant, StoreError, StoreFuture, Thread,
    ThreadId, UsageRecord,
};
use tokio_postgres::GenericClient;

use super::agents::live_project;
use super::records::{PgStore, V, body, db, jsonb, micro, next_micro, page, page_fetch, record};
use super::statements::Db;
use crate::cluster::Shard;
use crate::error::ApiError;
use crate::store::participants::ParticipantPut;
use crate::store::port::{ThreadRecords, ThreadSwap};
use crate::store::thread_access::ThreadAccess;
use crate::store::threads::Created;
use crate::store::update::Updated;
use crate::store::{Page, UsageFilter, keys};

/// The shard that owns `thread`: its delegation root's, else its own.
pub fn shard_of(thread: &Thread) -> Shard {
    let root = thread
        .delegation
        .as_ref()
        .map_or(thread.id, |d| d.root_thread_id);
    Shard::of(root)
}

/// Inserts `record` at its `created_at`, or the first later microsecond
/// free in its org, and counts a visitor's call against its
/// publication's day; returns it as stored.
pub(crate) async fn insert_usage(
    client: Db<'_, impl GenericClient>,
    mut record: UsageRecord,
) -> Result<UsageRecord, StoreError> {
    record.created_at = micro(record.created_at);
    loop {
        let inserted = client
            .execute(
                "INSERT INTO usage_records
                   (org_id, id, created_at, agent_id, thread_id, message_id, publication_id, v, body)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                 ON CONFLICT (org_id, created_at) DO NOTHING",
                &[
                    &record.org_id.0,
                    &record.id.0,
                    &record.created_at,
                    &record.agent_id.0,
                    &record.thread_id.map(|t| t.0),
                    &record.message_id.map(|m| m.0),
                    &record.publication_id.map(|p| p.0),
                    &V,
                    &body(&record),
                ],
            )
            .await
            .map_err(db)?;
        if inserted == 1 {
            break;
        }
        record.created_at = next_micro(record.created_at);
    }
    if let Some(publication) = record.publication_id {
        let day = i32::try_from(keys::day_number(record.created_at)).unwrap_or(i32::MAX);
        let tokens = i64::try_from(record.input_tokens.saturating_add(record.output_tokens))
            .unwrap_or(i64::MAX);
        client
            .execute(
                "INSERT INTO publication_days (publication_id, day, tokens) VALUES ($1, $2, $3)
                 ON CONFLICT (publication_id, day)
                 DO UPDATE SET tokens = publication_days.tokens + EXCLUDED.tokens",
                &[&publication.0, &day, &tokens],
            )
            .await
            .map_err(db)?;
    }
    Ok(record)
}

/// The thread's row, in `org` only.
pub(crate) async fn thread(
    client: Db<'_, impl GenericClient>,
    org: OrgId,
    id: ThreadId,
) -> Result<Option<Thread>, StoreError> {
    client
        .query_opt(
            "SELECT v, body FROM threads WHERE org_id = $1 AND id = $2",
            &[&org.0, &id.0],
        )
        .await
        .map_err(db)?
        .map(|row| record(&row))
        .transpose()
}

/// The thread's whole context, oldest first.
pub(crate) async fn context(
    client: Db<'_, impl GenericClient>,
    thread: ThreadId,
) -> Result<Vec<ContextMessage>, StoreError> {
    client
        .query(
            "SELECT v, body FROM context_entries WHERE thread_id = $1 ORDER BY seq",
            &[&thread.0],
        )
        .await
        .map_err(db)?
        .iter()
        .map(record)
        .collect()
}

impl ThreadRecords for PgStore {
    fn trace(&self, id: confer_actors::TraceId) -> StoreFuture<Option<confer_actors::TraceRecord>> {
        self.stored_trace(id)
    }

    fn traces(
        &self,
        scope: crate::store::traces::TraceScope,
        query: crate::store::traces::TraceQuery,
    ) -> StoreFuture<crate::store::traces::TracePage> {
        self.stored_traces(scope, query)
    }

    fn day_aggregates(
        &self,
        org: OrgId,
        user: Option<String>,
        first: u32,
        last: u32,
    ) -> StoreFuture<Vec<crate::observability::analytics::DayEntry>> {
        let store = self.clone();
        Box::pin(async move {
            store
                .read_day_aggregates(org, user.as_deref(), first, last)
                .await
        })
    }

    fn create_thread(&self, thread: Thread) -> StoreFuture<Thread> {
        let store = self.clone();
        Box::pin(async move { store.create(thread, None, None).await?.into_new() })
    }

    fn create_thread_keyed(
        &self,
        thread: Thread,
        owner: Option<Participant>,
        keyed: Option<([u8; 32], String)>,
    ) -> StoreFuture<Created> {
        let store = self.clone();
        Box::pin(async move { store.create(thread, owner, keyed).await })
    }

    fn thread(&self, org: OrgId, id: ThreadId) -> StoreFuture<Option<Thread>> {
        let store = self.clone();
        Box::pin(async move { thread(store.session().await?.db(), org, id).await })
    }

    fn thread_access(
        &self,
        org: OrgId,
        id: ThreadId,
        user: Option<String>,
        with_agent: bool,
    ) -> StoreFuture<Option<ThreadAccess>> {
        let store = self.clone();
        Box::pin(async move { store.access_of(org, id, user, with_agent).await })
    }

    fn update_thread(
        &self,
        org: OrgId,
        id: ThreadId,
        mut change: ThreadSwap,
    ) -> StoreFuture<Updated<Thread, ApiError>> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let held: Option<Thread> = tx
                .query_opt(
                    "SELECT v, body FROM threads WHERE org_id = $1 AND id = $2 FOR UPDATE",
                    &[&org.0, &id.0],
                )
                .await
                .map_err(db)?
                .map(|row| record(&row))
                .transpose()?;
            let Some(before) = held else {
                return Ok(Updated::Gone);
            };
            let mut after = match change(before.clone()) {
                Ok(after) => after,
                Err(refused) => return Ok(Updated::Refused(refused)),
            };
            // What keys the row never changes.
            after.org_id = before.org_id;
            after.agent_id = before.agent_id;
            after.created_at = before.created_at;
            after.updated_at = micro(after.updated_at);
            if let Some(project) = after.project_id
                && !live_project(&tx, org, project).await?
            {
                after.project_id = None;
            }
            tx.execute(
                "UPDATE threads SET project_id = $3, v = $4, body = $5 WHERE org_id = $1 AND id = $2",
                &[&org.0, &id.0, &after.project_id.map(|p| p.0), &V, &jsonb(&after)?],
            )
            .await
            .map_err(db)?;
            tx.commit().await.map_err(db)?;
            Ok(Updated::Stored(after))
        })
    }

    fn delete_thread(&self, org: OrgId, id: ThreadId) -> StoreFuture<bool> {
        let store = self.clone();
        Box::pin(async move { store.remove_thread(org, id).await })
    }

    fn messages(
        &self,
        thread: ThreadId,
        offset: u64,
        limit: usize,
    ) -> StoreFuture<(Vec<Message>, u64)> {
        let store = self.clone();
        Box::pin(async move {
            let session = store.session().await?;
            let client = &session.client;
            let total: i64 = client
                .query_opt("SELECT last_seq FROM threads WHERE id = $1", &[&thread.0])
                .await
                .map_err(db)?
                .map_or(0, |row| row.get(0));
            let offset = i64::try_from(offset).unwrap_or(i64::MAX);
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let messages = client
                .query(
                    "SELECT v, body FROM messages WHERE thread_id = $1 AND seq > $2
                     ORDER BY seq LIMIT $3",
                    &[&thread.0, &offset, &limit],
                )
                .await
                .map_err(db)?
                .iter()
                .map(record)
                .collect::<Result<_, _>>()?;
            Ok((messages, u64::try_from(total).unwrap_or(0)))
        })
    }

    fn context(&self, thread: ThreadId) -> StoreFuture<Vec<ContextMessage>> {
        let store = self.clone();
        Box::pin(async move { context(store.session().await?.db(), thread).await })
    }

    fn usage(
        &self,
        org: OrgId,
        filter: UsageFilter,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> StoreFuture<Page<UsageRecord>> {
        let store = self.clone();
        Box::pin(async move {
            let session = store.session().await?;
            let fetch = page_fetch(limit);
            let rows = session
                .db()
                .query(
                    "SELECT v, body FROM usage_records
                     WHERE org_id = $1
                       AND ($2::uuid IS NULL OR thread_id = $2)
                       AND ($3::uuid IS NULL OR agent_id = $3)
                       AND ($4::timestamptz IS NULL OR created_at < $4)
                     ORDER BY created_at DESC LIMIT $5",
                    &[
                        &org.0,
                        &filter.thread.map(|t| t.0),
                        &filter.agent.map(|a| a.0),
                        &before,
                        &fetch,
                    ],
                )
                .await
                .map_err(db)?;
            page(&rows, limit, |r: &UsageRecord| r.created_at)
        })
    }

    fn list_threads(
        &self,
        org: OrgId,
        agent: AgentId,
        user: Option<String>,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> StoreFuture<Page<Thread>> {
        self.threads_page(org, agent, user, before, limit)
    }

    fn child_threads(
        &self,
        org: OrgId,
        parent: ThreadId,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> StoreFuture<Page<Thread>> {
        self.children_page(org, parent, before, limit)
    }

    fn put_participant(
        &self,
        org: OrgId,
        thread: ThreadId,
        participant: Participant,
        cap: Option<usize>,
    ) -> StoreFuture<ParticipantPut> {
        self.store_participant(org, thread, participant, cap)
    }

    fn participants(&self, thread: ThreadId) -> StoreFuture<Vec<Participant>> {
        self.thread_participants(thread)
    }

    fn remove_participant(
        &self,
        _org: OrgId,
        thread: ThreadId,
        user_id: String,
    ) -> StoreFuture<bool> {
        self.drop_participant(thread, user_id)
    }
}
