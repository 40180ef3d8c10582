//! The engine's `ThreadStore` port on PostgreSQL: a turn's reads in one
//! session (pipelined where they do not depend on each other), and each of
//! its writes one transaction, acknowledged once committed (sessions run
//! with `synchronous_commit = on`, so `flush` has nothing left to wait for).
//!
//! An append updates the thread's row first: the row lock orders the
//! appends of one thread, so the seqs it hands out stay dense. Fencing,
//! `turns` marks and traces are in `marks`.

use std::time::Instant;

use confer_actors::{
    AdmissionReads, AppendDone, ContextMessage, ContextRole, Fence, IdempotencyRecord, LastTurn,
    Message, OrgId, StoreError, StoreFuture, ThreadAppend, ThreadId, ThreadStore, TurnEnd,
    TurnInputs, TurnMark, UsageRecord,
};
use tokio_postgres::Transaction;

use super::agents::{agent, config};
use super::marks::{held, record_mark, store_trace};
use super::records::{PgStore, V, body, db, micro, record};
use super::threads::{context, insert_usage, thread};
use crate::store::keys::ConfigKind;
use crate::store::sealed::open_credentials;

/// The `role` column of a context entry.
fn role(entry: &ContextMessage) -> &'static str {
    match entry.role {
        ContextRole::User => "user",
        ContextRole::Assistant => "assistant",
        ContextRole::Tool => "tool",
    }
}

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

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
            let client = &session.client;
            let Some(thread) = thread(client, org, id).await? else {
                return Ok(None);
            };
            let of = thread.agent_id;
            let history = async {
                match with_history {
                    true => context(client, id).await.map(Some),
                    false => Ok(None),
                }
            };
            let (agent, credentials, compaction, plans, knowledge, history) = tokio::try_join!(
                agent(client, org, of),
                config(client, org, of, ConfigKind::Credentials),
                config(client, org, of, ConfigKind::Compaction),
                config(client, org, of, ConfigKind::Plans),
                config(client, org, of, ConfigKind::Knowledge),
                history,
            )?;
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
            let client = &session.client;
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
                .client
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
        Box::pin(async move { insert_usage(&store.session().await?.client, record).await })
    }

    fn flush(&self) -> StoreFuture<()> {
        Box::pin(async { Ok(()) })
    }

    fn end_turn(&self, thread: ThreadId, fence: Option<Fence>, end: TurnEnd) -> StoreFuture<()> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let transaction = session.client.transaction().await.map_err(db)?;
            held(&transaction, fence).await?;
            record_mark(&transaction, thread, fence, TurnMark::Ended(end)).await?;
            transaction.commit().await.map_err(db)
        })
    }

    fn append_durably(&self, thread: ThreadId, write: ThreadAppend) -> StoreFuture<AppendDone> {
        let store = self.clone();
        Box::pin(async move {
            let mut session = store.session().await?;
            let listed_id = write.listed.as_ref().map(|m| m.id);
            let transaction = session.client.transaction().await.map_err(db)?;
            let (fence, mark) = (write.fence, write.mark.clone());
            held(&transaction, fence).await?;
            let listed = append(&transaction, thread, write).await?;
            if let Some(mark) = mark {
                record_mark(&transaction, thread, fence, mark).await?;
            }
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
            .client
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

/// The writes of one append inside `tx`; the listed message as stored.
async fn append(
    tx: &Transaction<'_>,
    thread: ThreadId,
    write: ThreadAppend,
) -> Result<Option<Message>, StoreError> {
    let ThreadAppend {
        turn,
        listed,
        context,
        keyed,
        usage,
        billed,
        earlier_calls,
        trace,
        fence: _,
        mark: _,
    } = write;
    let turn = turn.map_or(0, |t| i64::try_from(t).unwrap_or(i64::MAX));
    let counters = tx
        .query_opt(
            "UPDATE threads SET last_turn = GREATEST(last_turn, $2),
                                last_seq = last_seq + $3,
                                last_context_seq = last_context_seq + $4
             WHERE id = $1 RETURNING last_seq, last_context_seq",
            &[
                &thread.0,
                &turn,
                &count(usize::from(listed.is_some())),
                &count(context.len()),
            ],
        )
        .await
        .map_err(db)?
        .ok_or_else(|| StoreError::Engine(format!("thread {thread} is gone")))?;
    let (last_seq, last_context_seq): (i64, i64) = (counters.get(0), counters.get(1));
    let message = match listed {
        Some(mut message) => {
            message.seq = u64::try_from(last_seq).unwrap_or(0);
            message.created_at = micro(message.created_at);
            tx.execute(
                "INSERT INTO messages (thread_id, seq, v, body) VALUES ($1, $2, $3, $4)",
                &[&thread.0, &last_seq, &V, &body(&message)],
            )
            .await
            .map_err(db)?;
            Some(message)
        }
        None => None,
    };
    let first = last_context_seq - count(context.len()) + 1;
    for (at, entry) in (first..).zip(&context) {
        tx.execute(
            "INSERT INTO context_entries (thread_id, seq, role, v, body) VALUES ($1, $2, $3, $4, $5)",
            &[&thread.0, &at, &role(entry), &V, &body(entry)],
        )
        .await
        .map_err(db)?;
    }
    if let Some((key, mut keyed)) = keyed {
        // On the answer's write the record learns where the answer went.
        if let (Some(outcome), Some(answer)) = (keyed.outcome.as_mut(), &message) {
            outcome.answer_seq = Some(answer.seq);
            outcome.message_id = Some(answer.id);
        }
        tx.execute(
            "INSERT INTO keyed_sends (thread_id, key_hash, created_at, v, body)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (thread_id, key_hash)
             DO UPDATE SET created_at = EXCLUDED.created_at, v = EXCLUDED.v, body = EXCLUDED.body",
            &[
                &thread.0,
                &key.as_slice(),
                &keyed.created_at,
                &V,
                &body(&keyed),
            ],
        )
        .await
        .map_err(db)?;
    }
    let answer = message.as_ref().map(|m| m.id);
    for stored in billed {
        let linked = UsageRecord {
            message_id: answer,
            ..stored
        };
        tx.execute(
            "UPDATE usage_records SET message_id = $3, body = $4 WHERE org_id = $1 AND id = $2",
            &[
                &linked.org_id.0,
                &linked.id.0,
                &answer.map(|m| m.0),
                &body(&linked),
            ],
        )
        .await
        .map_err(db)?;
    }
    for record in earlier_calls.into_iter().chain(usage) {
        insert_usage(
            tx,
            UsageRecord {
                message_id: answer,
                ..record
            },
        )
        .await?;
    }
    if let Some(trace) = trace {
        store_trace(tx, &trace).await?;
    }
    Ok(message)
}
