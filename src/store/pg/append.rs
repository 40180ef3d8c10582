//! One thread append on PostgreSQL, inside its transaction, in as few
//! statements as its rows allow: PostgreSQL's time per turn is mostly its
//! time per statement, so each is worth a lot (`docs/performance.md`).
//!
//! - [`FENCED_HEAD`]: the fencing check, the thread's counters and the
//!   turn's `turns` mark in one statement. The counters come first: the
//!   thread row's lock orders the appends of one thread, so the seqs it
//!   hands out stay dense. A check that fails writes nothing and drops the
//!   transaction.
//! - [`ROWS`]: the listed message, every context entry (as arrays), the
//!   trace and the turn's usage record in one statement, pipelined with
//!   the few writes that stay their own (a keyed send's record, a usage
//!   row counted against a publication's day, a call's billed before),
//!   then the commit.

use std::future::Future;
use std::pin::Pin;

use confer_actors::{
    ContextMessage, ContextRole, Fence, Message, StoreError, ThreadAppend, ThreadId, TraceRecord,
    TurnMark, UsageRecord,
};
use futures_util::future::try_join_all;
use tokio_postgres::Transaction;

use super::marks::record_mark;
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
    let (last_seq, last_context_seq, mark) = head(
        tx,
        thread,
        turn,
        (count(usize::from(listed.is_some())), count(context.len())),
        fence,
        mark,
    )
    .await?;

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
    let mut inserted: Vec<UsageRecord> = earlier_calls
        .into_iter()
        .chain(usage)
        .map(|record| UsageRecord {
            message_id: answer,
            ..record
        })
        .collect();

    // One usage record of the thread's own rides with the rows.
    let usage = match inserted.as_slice() {
        [record] if record.thread_id == Some(thread) && record.publication_id.is_none() => {
            inserted.pop()
        }
        _ => None,
    };
    let mut writes: Vec<Write<'_>> = Vec::new();
    if message.is_some() || !context.is_empty() || trace.is_some() || usage.is_some() {
        let rows_of = Rows {
            thread,
            message: (last_seq, message.as_ref()),
            context: (last_context_seq - count(context.len()) + 1, &context),
            trace: trace.as_deref(),
            usage,
        };
        writes.push(write(rows(tx, rows_of)));
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
    if let Some(mark) = mark {
        writes.push(write(record_mark(tx, thread, fence, mark)));
    }
    try_join_all(writes).await?;
    Ok(message)
}

/// The fence, the thread's counters and the turn's mark: `$1` thread,
/// `$2` the append's turn, `$3` and `$4` the listed and context rows it
/// adds, `$5`–`$7` the fence (shard, epoch, node), `$8` the mark
/// (`started`, `ended` or null) with `$9` its turn, `$10` the started
/// turn's trace, `$11`–`$13` the ended turn's status, code and last
/// frame. One row: whether the fence held, then the counters (null when
/// it did not).
const FENCED_HEAD: &str = concat!(
    "WITH ",
    crate::cluster::leases::fence_cte!("$5", "$6", "$7"),
    ",
     counters AS (
       UPDATE threads SET last_turn = GREATEST(last_turn, $2::bigint),
                          last_seq = last_seq + $3::bigint,
                          last_context_seq = last_context_seq + $4::bigint
       WHERE id = $1::uuid AND EXISTS (SELECT 1 FROM fence)
       RETURNING last_seq, last_context_seq),
     started AS (
       INSERT INTO turns (thread_id, turn, shard, node_id, trace_id, status)
       SELECT $1, $9::bigint, $5, $7, $10::uuid, 'running'
       WHERE $8::text = 'started' AND EXISTS (SELECT 1 FROM fence)
       ON CONFLICT (thread_id, turn) DO NOTHING),
     ended AS (
       UPDATE turns SET status = $11::text, code = $12::text, last_frame = $13::bigint,
                        ended_at = now()
       WHERE $8 = 'ended' AND thread_id = $1 AND turn = $9 AND EXISTS (SELECT 1 FROM fence))
     SELECT EXISTS (SELECT 1 FROM fence), c.last_seq, c.last_context_seq
     FROM (VALUES (true)) AS one LEFT JOIN counters c ON true"
);

/// The counters of an append without a fence (a store no node leases).
const COUNTERS: &str = "UPDATE threads SET last_turn = GREATEST(last_turn, $2),
                                last_seq = last_seq + $3,
                                last_context_seq = last_context_seq + $4
             WHERE id = $1 RETURNING last_seq, last_context_seq";

/// The append's first statement ([`FENCED_HEAD`], or [`COUNTERS`] without
/// a fence): the thread's new `last_seq` and `last_context_seq`, and the
/// mark still to write (one that needs no fence: without one).
async fn head(
    tx: Db<'_, Transaction<'_>>,
    thread: ThreadId,
    turn: i64,
    (listed, context): (i64, i64),
    fence: Option<Fence>,
    mark: Option<TurnMark>,
) -> Result<(i64, i64, Option<TurnMark>), StoreError> {
    let gone = || StoreError::Engine(format!("thread {thread} is gone"));
    let Some(fence) = fence else {
        let row = tx
            .query_opt(COUNTERS, &[&thread.0, &turn, &listed, &context])
            .await
            .map_err(db)?
            .ok_or_else(gone)?;
        return Ok((row.get(0), row.get(1), mark));
    };
    let shard = i16::try_from(fence.shard).map_err(|_| StoreError::Fenced)?;
    let as_i64 = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let (kind, mark_turn, trace, status, code, last_frame) = match &mark {
        None => (None, None, None, None, None, None),
        Some(TurnMark::Started { turn, trace_id }) => (
            Some("started"),
            Some(as_i64(*turn)),
            trace_id.map(|t| t.0),
            None,
            None,
            None,
        ),
        Some(TurnMark::Ended(end)) => (
            Some("ended"),
            Some(as_i64(end.turn)),
            None,
            Some(if end.ok { "done" } else { "failed" }),
            end.code.as_deref(),
            Some(as_i64(end.last_frame)),
        ),
    };
    let row = tx
        .query_one(
            FENCED_HEAD,
            &[
                &thread.0,
                &turn,
                &listed,
                &context,
                &shard,
                &fence.epoch,
                &fence.node,
                &kind,
                &mark_turn,
                &trace,
                &status,
                &code,
                &last_frame,
            ],
        )
        .await
        .map_err(db)?;
    if !row.get::<_, bool>(0) {
        return Err(StoreError::Fenced);
    }
    let last_seq: Option<i64> = row.get(1);
    let last_context_seq: Option<i64> = row.get(2);
    Ok((
        last_seq.ok_or_else(gone)?,
        last_context_seq.ok_or_else(gone)?,
        None,
    ))
}

/// The listed message, the context entries, the trace and one usage
/// record: `$1` thread, `$2` the message's seq, `$3` the record version,
/// `$4` the message (or null), `$5` the first entry's seq, `$6` and `$7`
/// the entries' roles and bodies, `$8`–`$13` the trace's columns and
/// `$14`–`$19` the usage record's (each null without one). One row: how
/// many usage records went in (none when its instant was taken).
const ROWS: &str = "WITH listed AS (
       INSERT INTO messages (thread_id, seq, v, body)
       SELECT $1::uuid, $2::bigint, $3::smallint, $4::json WHERE $4 IS NOT NULL),
     traced AS (
       INSERT INTO traces (id, started_at, org_id, agent_id, thread_id, v, body)
       SELECT $8::uuid, $9::timestamptz, $10::uuid, $11::uuid, $12::uuid, $3, $13::json
       WHERE $8 IS NOT NULL),
     entries AS (
       INSERT INTO context_entries (thread_id, seq, role, v, body)
       SELECT $1, $5::bigint + e.n - 1, e.role, $3, e.body
       FROM unnest($6::text[], $7::json[]) WITH ORDINALITY AS e(role, body, n)),
     billed AS (
       INSERT INTO usage_records
         (org_id, id, created_at, agent_id, thread_id, message_id, publication_id, v, body)
       SELECT $14::uuid, $15::uuid, $16::timestamptz, $17::uuid, $1, $18::uuid, NULL, $3, $19::json
       WHERE $14 IS NOT NULL
       ON CONFLICT (org_id, created_at) DO NOTHING
       RETURNING 1)
     SELECT count(*) FROM billed";

/// What [`ROWS`] writes of an append.
struct Rows<'a> {
    thread: ThreadId,
    /// The message and its seq.
    message: (i64, Option<&'a Message>),
    /// The context entries and the first one's seq.
    context: (i64, &'a [ContextMessage]),
    trace: Option<&'a TraceRecord>,
    /// A usage record of the thread's, outside any publication's day
    /// budget (whose rows [`insert_usage`] keeps).
    usage: Option<UsageRecord>,
}

/// Writes [`ROWS`]; a usage record whose instant its org had taken goes
/// in at the next free one, as [`insert_usage`] does.
async fn rows(tx: Db<'_, Transaction<'_>>, rows: Rows<'_>) -> Result<(), StoreError> {
    let Rows {
        thread,
        message: (seq, message),
        context: (first, context),
        trace,
        usage,
    } = rows;
    let roles: Vec<&str> = context.iter().map(role).collect();
    let bodies: Vec<_> = context.iter().map(body).collect();
    let traced = trace.map(|record| &record.trace);
    let usage = usage.map(|record| UsageRecord {
        created_at: micro(record.created_at),
        ..record
    });
    let billed = usage.as_ref();
    let row = tx
        .query_one(
            ROWS,
            &[
                &thread.0,
                &seq,
                &V,
                &message.map(body),
                &first,
                &roles,
                &bodies,
                &traced.map(|t| t.id.0),
                &traced.map(|t| micro(t.started_at)),
                &traced.map(|t| t.org_id.0),
                &traced.map(|t| t.agent_id.0),
                &traced.map(|t| t.thread_id.0),
                &trace.map(body),
                &billed.map(|u| u.org_id.0),
                &billed.map(|u| u.id.0),
                &billed.map(|u| u.created_at),
                &billed.map(|u| u.agent_id.0),
                &billed.and_then(|u| u.message_id.map(|m| m.0)),
                &billed.map(body),
            ],
        )
        .await
        .map_err(db)?;
    if let Some(record) = usage
        && row.get::<_, i64>(0) == 0
    {
        insert_usage(tx, record).await?;
    }
    Ok(())
}
