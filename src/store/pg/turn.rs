//! The engine's `ThreadStore` port on PostgreSQL: a turn's reads in one
//! session (pipelined where they do not depend on each other), and each of
//! its writes one transaction, acknowledged once committed (sessions run
//! with `synchronous_commit = on`, so `flush` has nothing left to wait for).
//!
//! An append's writes are in `append`; fencing, `turns` marks and traces
//! in `marks`. Statements run prepared, once per session (`statements`).

use std::time::Instant;

use confer_actors::{
    AdmissionReads, AppendDone, Fence, IdempotencyRecord, LastTurn, Message, OrgId, StoreError,
    StoreFuture, Thread, ThreadAppend, ThreadId, ThreadStore, TurnEnd, TurnInputs, TurnMark,
    UsageRecord,
};

use super::append::append;
use super::marks::{held, record_mark};
use super::records::{PgStore, db, joined, record};
use super::threads::{context, insert_usage};
use crate::store::keys::ConfigKind;
use crate::store::sealed::open_credentials;

/// What a turn reads before it starts: the thread, its agent and the
/// agent's configurations of kinds `$3` to `$6` (credentials, compaction,
/// plans, knowledge).
const INPUTS: &str = "SELECT t.v, t.body, a.v AS agent_v, a.body AS agent_body,
       c.v AS credentials_v, c.body AS credentials_body,
       m.v AS compaction_v, m.body AS compaction_body,
       p.v AS plans_v, p.body AS plans_body,
       k.v AS knowledge_v, k.body AS knowledge_body
     FROM threads t
     LEFT JOIN agents a ON a.org_id = t.org_id AND a.id = t.agent_id
     LEFT JOIN agent_configs c ON c.org_id = t.org_id AND c.agent_id = t.agent_id AND c.kind = $3
     LEFT JOIN agent_configs m ON m.org_id = t.org_id AND m.agent_id = t.agent_id AND m.kind = $4
     LEFT JOIN agent_configs p ON p.org_id = t.org_id AND p.agent_id = t.agent_id AND p.kind = $5
     LEFT JOIN agent_configs k ON k.org_id = t.org_id AND k.agent_id = t.agent_id AND k.kind = $6
     WHERE t.org_id = $1 AND t.id = $2";

impl ThreadStore for PgStore {
    fn turn_inputs(
        &self,
        org: OrgId,
        id: ThreadId,
        with_history: bool,
    ) -> StoreFuture<Option<TurnInputs>> {
        let store = self.clone();
        Box::pin(async move {
            let session = store.session().await?;
            let client = session.db();
            // The thread, its agent and its configurations in one
            // statement; the history beside it, pipelined.
            let history = async {
                match with_history {
                    true => context(client, id).await.map(Some),
                    false => Ok(None),
                }
            };
            let kinds = [
                ConfigKind::Credentials,
                ConfigKind::Compaction,
                ConfigKind::Plans,
                ConfigKind::Knowledge,
            ]
            .map(|kind| kind as i16);
            let facts = async {
                client
                    .query_opt(
                        INPUTS,
                        &[&org.0, &id.0, &kinds[0], &kinds[1], &kinds[2], &kinds[3]],
                    )
                    .await
                    .map_err(db)
            };
            let (row, history) = tokio::try_join!(facts, history)?;
            let Some(row) = row else { return Ok(None) };
            let thread: Thread = record(&row)?;
            let of = thread.agent_id;
            let agent = joined(&row, "agent_")?;
            let credentials = joined(&row, "credentials_")?;
            let compaction = joined(&row, "compaction_")?;
            let plans = joined(&row, "plans_")?;
            let knowledge = joined(&row, "knowledge_")?;
            Ok(Some(TurnInputs {
                agent,
                credentials: open_credentials(
                    &store.secrets,
                    org,
                    of,
                    credentials.unwrap_or_default(),
                )?,
                compaction: compaction.unwrap_or_default(),
                plans: plans.unwrap_or_default(),
                knowledge: knowledge.unwrap_or_default(),
                history,
                thread,
            }))
        })
    }

    fn admission_reads(
        &self,
        thread: ThreadId,
        key: Option<[u8; 32]>,
        tail: bool,
    ) -> StoreFuture<AdmissionReads> {
        let store = self.clone();
        Box::pin(async move {
            let session = store.session().await?;
            let client = session.db();
            let keyed = async {
                let Some(key) = key else { return Ok(None) };
                client
                    .query_opt(
                        "SELECT v, body FROM keyed_sends WHERE thread_id = $1 AND key_hash = $2",
                        &[&thread.0, &key.as_slice()],
                    )
                    .await
                    .map_err(db)?
                    .map(|row| record::<IdempotencyRecord>(&row))
                    .transpose()
            };
            let tail = async {
                if !tail {
                    return Ok(None);
                }
                // From the last assistant entry on (all of it when none).
                let rows = client
                    .query(
                        "SELECT v, body FROM context_entries WHERE thread_id = $1 AND seq >= COALESCE(
                           (SELECT max(seq) FROM context_entries
                            WHERE thread_id = $1 AND role = 'assistant'), 0)
                         ORDER BY seq",
                        &[&thread.0],
                    )
                    .await
                    .map_err(db)?;
                rows.iter().map(record).collect::<Result<_, _>>().map(Some)
            };
            let (keyed, tail) = tokio::try_join!(keyed, tail)?;
            Ok(AdmissionReads { keyed, tail })
        })
    }

    fn last_turn(&self, thread: ThreadId) -> StoreFuture<LastTurn> {
        let store = self.clone();
        Box::pin(async move {
            let session = store.session().await?;
            let row = session
                .db()
                .query_opt(
                    "SELECT t.last_turn,
                            (SELECT node_id FROM turns WHERE thread_id = t.id
                             ORDER BY turn DESC LIMIT 1)
                     FROM threads t WHERE t.id = $1",
                    &[&thread.0],
                )
                .await
                .map_err(db)?;
            Ok(row.map_or_else(LastTurn::default, |row| LastTurn {
                turn: u64::try_from(row.get::<_, i64>(0)).unwrap_or(0),
                node: row.get(1),
            }))
        })
    }

    fn record_usage(&self, record: UsageRecord) -> StoreFuture<UsageRecord> {
        let store = self.clone();
        Box::pin(async move { insert_usage(store.session().await?.db(), record).await })
    }

    fn flush(&self) -> StoreFuture<()> {
        Box::pin(async { Ok(()) })
    }

    fn end_turn(&self, thread: ThreadId, fence: Option<Fence>, end: TurnEnd) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let transaction = session.transaction().await.map_err(db)?;
            let tx = transaction.db();
            // One round trip: a failed check rolls the mark back.
            tokio::try_join!(
                held(tx, fence),
                record_mark(tx, thread, fence, TurnMark::Ended(end))
            )?;
            transaction.commit().await.map_err(db)
        })
    }

    fn append_durably(&self, thread: ThreadId, write: ThreadAppend) -> StoreFuture<AppendDone> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let listed_id = write.listed.as_ref().map(|m| m.id);
            // Kept for the trace listener (OTLP), told once committed.
            let exported = store.trace_listener.get().and(write.trace.clone());
            let transaction = session.transaction().await.map_err(db)?;
            let listed = append(transaction.db(), thread, write).await?;
            match transaction.commit().await {
                Ok(()) => {}
                // The commit's outcome is unknown when the connection broke
                // during it: read back before telling the turn either way.
                Err(error) if error.as_db_error().is_none() => {
                    drop(session);
                    let stored = match (&listed, listed_id) {
                        (Some(message), Some(id)) => {
                            store.message_stored(thread, message.seq, id).await?
                        }
                        _ => false,
                    };
                    if !stored {
                        return Err(db(error));
                    }
                }
                Err(error) => return Err(db(error)),
            }
            if let (Some(listener), Some(trace)) = (store.trace_listener.get(), &exported) {
                listener(trace);
            }
            Ok(AppendDone {
                listed,
                applied_at: Instant::now(),
            })
        })
    }
}

impl PgStore {
    /// Whether the message `id` is the thread's `seq`: how an append whose
    /// commit went unanswered learns that it happened.
    async fn message_stored(
        &self,
        thread: ThreadId,
        seq: u64,
        id: confer_actors::MessageId,
    ) -> Result<bool, StoreError> {
        let session = self.session().await?;
        let row = session
            .db()
            .query_opt(
                "SELECT v, body FROM messages WHERE thread_id = $1 AND seq = $2",
                &[&thread.0, &i64::try_from(seq).unwrap_or(i64::MAX)],
            )
            .await
            .map_err(db)?;
        Ok(row
            .map(|row| record::<Message>(&row))
            .transpose()?
            .is_some_and(|m| m.id == id))
    }
}
