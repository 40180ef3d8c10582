//! One thread append on PostgreSQL, inside its transaction, in three round
//! trips: the fencing check with the thread's counters, then every row
//! the append writes, pipelined (the driver sends them on one connection
//! in order; the server runs them in that order), then the commit.
//!
//! The counters' update comes first: the thread row's lock orders the
//! appends of one thread, so the seqs it hands out stay dense. A fencing
//! check that fails drops the transaction, and with it what went out
//! beside it.

use std::future::Future;
use std::pin::Pin;

use confer_actors::{
    ContextMessage, ContextRole, Message, StoreError, ThreadAppend, ThreadId, UsageRecord,
};
use futures_util::future::try_join_all;
use tokio_postgres::Transaction;

use super::marks::{held, record_mark, store_trace};
use super::records::{V, body, db, micro};
use super::statements::Db;
use super::threads::insert_usage;

/// The `role` column of a context entry.
pub(super) fn role(entry: &ContextMessage) -> &'static str {
    match entry.role {
        ContextRole::User => "user",
        ContextRole::Assistant => "assistant",
        ContextRole::Tool => "tool",
    }
}

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// One pipelined write of an append.
type Write<'a> = Pin<Box<dyn Future<Output = Result<(), StoreError>> + Send + 'a>>;

fn write<'a>(future: impl Future<Output = Result<(), StoreError>> + Send + 'a) -> Write<'a> {
    Box::pin(future)
}

/// The writes of `append` inside `tx`, its fence checked and its turn mark
/// recorded; the listed message as stored.
pub(super) async fn append(
    tx: Db<'_, Transaction<'_>>,
    thread: ThreadId,
    append: ThreadAppend,
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
        fence,
        mark,
    } = append;
    let turn = turn.map_or(0, |t| i64::try_from(t).unwrap_or(i64::MAX));
    let counters = async {
        tx.query_opt(
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
        .ok_or_else(|| StoreError::Engine(format!("thread {thread} is gone")))
    };
    let ((), counters) = tokio::try_join!(held(tx, fence), counters)?;
    let (last_seq, last_context_seq): (i64, i64) = (counters.get(0), counters.get(1));

    // Every row is made before the writes borrow it.
    let message = listed.map(|mut message| {
        message.seq = u64::try_from(last_seq).unwrap_or(0);
        message.created_at = micro(message.created_at);
        message
    });
    let answer = message.as_ref().map(|m| m.id);
    let keyed = keyed.map(|(key, mut keyed)| {
        // On the answer's write the record learns where the answer went.
        if let (Some(outcome), Some(answer)) = (keyed.outcome.as_mut(), &message) {
            outcome.answer_seq = Some(answer.seq);
            outcome.message_id = Some(answer.id);
        }
        (key, keyed)
    });
    let linked: Vec<UsageRecord> = billed
        .into_iter()
        .map(|stored| UsageRecord {
            message_id: answer,
            ..stored
        })
        .collect();
    let inserted: Vec<UsageRecord> = earlier_calls
        .into_iter()
        .chain(usage)
        .map(|record| UsageRecord {
            message_id: answer,
            ..record
        })
        .collect();

    let mut writes: Vec<Write<'_>> = Vec::new();
    if let Some(message) = &message {
        writes.push(write(async move {
            tx.execute(
                "INSERT INTO messages (thread_id, seq, v, body) VALUES ($1, $2, $3, $4)",
                &[&thread.0, &last_seq, &V, &body(message)],
            )
            .await
            .map(drop)
            .map_err(db)
        }));
    }
    let first = last_context_seq - count(context.len()) + 1;
    for (at, entry) in (first..).zip(&context) {
        writes.push(write(async move {
            tx.execute(
                "INSERT INTO context_entries (thread_id, seq, role, v, body) VALUES ($1, $2, $3, $4, $5)",
                &[&thread.0, &at, &role(entry), &V, &body(entry)],
            )
            .await
            .map(drop)
            .map_err(db)
        }));
    }
    if let Some((key, keyed)) = &keyed {
        writes.push(write(async move {
            tx.execute(
                "INSERT INTO keyed_sends (thread_id, key_hash, created_at, v, body)
                 VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (thread_id, key_hash)
                 DO UPDATE SET created_at = EXCLUDED.created_at, v = EXCLUDED.v, body = EXCLUDED.body",
                &[&thread.0, &key.as_slice(), &keyed.created_at, &V, &body(keyed)],
            )
            .await
            .map(drop)
            .map_err(db)
        }));
    }
    for linked in &linked {
        writes.push(write(async move {
            tx.execute(
                "UPDATE usage_records SET message_id = $3, body = $4 WHERE org_id = $1 AND id = $2",
                &[
                    &linked.org_id.0,
                    &linked.id.0,
                    &answer.map(|m| m.0),
                    &body(linked),
                ],
            )
            .await
            .map(drop)
            .map_err(db)
        }));
    }
    if !inserted.is_empty() {
        // One after another: each may take the next free instant of its org.
        writes.push(write(async move {
            for record in inserted {
                insert_usage(tx, record).await?;
            }
            Ok(())
        }));
    }
    if let Some(trace) = &trace {
        writes.push(write(store_trace(tx, trace)));
    }
    if let Some(mark) = mark {
        writes.push(write(record_mark(tx, thread, fence, mark)));
    }
    try_join_all(writes).await?;
    Ok(message)
}
