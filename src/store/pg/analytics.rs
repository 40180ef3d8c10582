//! Analytics' per-day aggregates on PostgreSQL (migration V15), keyed as
//! sled keys them. sled merges each turn's share as it commits; here a
//! commit only stores its trace, and a trace counts once folded: the sweep
//! folds past days' traces into `trace_days` (marking them `folded` in the
//! same transaction, one node at a time under the sweep's lock), and a read
//! adds the traces not folded yet, both in one snapshot, so no trace counts
//! twice or not at all. A turn's write gains no statement and no hot row.

use std::collections::BTreeMap;

use chrono::{DateTime, TimeZone, Utc};
use confer_actors::{OrgId, StoreError, TraceRecord};
use tokio_postgres::{GenericClient, Row};

use super::records::{PgStore, db, record, snapshot};
use crate::observability::aggregate::DayAggregate;
use crate::observability::analytics::DayEntry;
use crate::store::keys;
use crate::store::traces::{day_of_key, day_range};

/// Traces folded per transaction.
const FOLD_BATCH: i64 = 2_000;

/// Sums by aggregate key.
type Sums = BTreeMap<Vec<u8>, DayAggregate>;

/// The first instant of UTC day number `day`.
fn day_start(day: u32) -> DateTime<Utc> {
    Utc.timestamp_opt(i64::from(day) * 86_400, 0)
        .single()
        .unwrap_or_default()
}

/// Adds the trace of `row` to its org's sum and its user's (`user`: only
/// that user's traces, to the user's sum alone); false when it does not
/// decode (it is left out).
fn add_trace(sums: &mut Sums, row: &Row, user: Option<&str>) -> bool {
    let Ok(record) = record::<TraceRecord>(row) else {
        return false;
    };
    let trace = &record.trace;
    if user.is_some_and(|u| u != trace.user_id) {
        return true;
    }
    let share = DayAggregate::of_trace(&record);
    let day = keys::day_number(trace.started_at);
    let (org, agent, model) = (trace.org_id, trace.agent_id, trace.model.as_str());
    let user_key = keys::user_trace_day_key(org, &trace.user_id, day, agent, model);
    let keys = match user {
        Some(_) => vec![user_key],
        None => vec![keys::trace_day_key(org, day, agent, model), user_key],
    };
    for key in keys {
        sums.entry(key).or_default().merge(&share);
    }
    true
}

/// Says how many traces did not decode, if any.
fn said_undecodable(undecodable: usize) {
    if undecodable > 0 {
        tracing::error!(
            undecodable,
            "stored traces do not decode; left out of analytics"
        );
    }
}

/// Merges `sums` into their stored rows.
async fn merge_stored(client: &impl GenericClient, sums: Sums) -> Result<(), StoreError> {
    for (key, sum) in sums {
        let stored = client
            .query_opt(
                "SELECT body FROM trace_days WHERE key = $1 FOR UPDATE",
                &[&key],
            )
            .await
            .map_err(db)?;
        let mut day = stored
            .and_then(|row| DayAggregate::decode(row.get(0)))
            .unwrap_or_default();
        day.merge(&sum);
        client
            .execute(
                "INSERT INTO trace_days (key, body) VALUES ($1, $2)
                 ON CONFLICT (key) DO UPDATE SET body = EXCLUDED.body",
                &[&key, &day.encode()],
            )
            .await
            .map_err(db)?;
    }
    Ok(())
}

impl PgStore {
    /// Folds the traces started before `before` into the day aggregates,
    /// a batch per transaction; how many were folded. Only the sweep calls
    /// it, under its lock.
    pub(crate) async fn fold_traces(&self, before: DateTime<Utc>) -> Result<u64, StoreError> {
        let mut folded = 0;
        loop {
            let mut session = self.session().await?;
            let tx = session.client.transaction().await.map_err(db)?;
            let rows = tx
                .query(
                    "SELECT id, started_at, v, body FROM traces
                     WHERE NOT folded AND started_at < $1 LIMIT $2",
                    &[&before, &FOLD_BATCH],
                )
                .await
                .map_err(db)?;
            let mut sums = Sums::new();
            let (mut ids, mut starts) = (Vec::new(), Vec::new());
            let mut undecodable = 0;
            for row in &rows {
                ids.push(row.get::<_, uuid::Uuid>("id"));
                starts.push(row.get::<_, DateTime<Utc>>("started_at"));
                undecodable += usize::from(!add_trace(&mut sums, row, None));
            }
            said_undecodable(undecodable);
            merge_stored(&tx, sums).await?;
            tx.execute(
                "UPDATE traces SET folded = true WHERE (id, started_at) IN
                   (SELECT * FROM unnest($1::uuid[], $2::timestamptz[]))",
                &[&ids, &starts],
            )
            .await
            .map_err(db)?;
            tx.commit().await.map_err(db)?;
            folded += rows.len() as u64;
            if (rows.len() as i64) < FOLD_BATCH {
                return Ok(folded);
            }
        }
    }

    /// The day aggregates of `org` (of `user` in it) for days
    /// `first..=last`: the folded sums and the traces not folded yet, read
    /// in one snapshot.
    pub(crate) async fn read_day_aggregates(
        &self,
        org: OrgId,
        user: Option<&str>,
        first: u32,
        last: u32,
    ) -> Result<Vec<DayEntry>, StoreError> {
        let (start, end) = day_range(org, user, first, last);
        let mut session = self.session().await?;
        let tx = snapshot(&mut session.client).await.map_err(db)?;
        let stored = tx
            .query(
                "SELECT key, body FROM trace_days WHERE key >= $1 AND key < $2",
                &[&start, &end],
            )
            .await
            .map_err(db)?;
        let mut sums = Sums::new();
        for row in &stored {
            match DayAggregate::decode(row.get(1)) {
                Some(day) => {
                    sums.insert(row.get(0), day);
                }
                None => tracing::error!(%org, "an analytics aggregate does not decode"),
            }
        }
        let live = tx
            .query(
                "SELECT v, body FROM traces WHERE org_id = $1 AND NOT folded
                   AND started_at >= $2 AND started_at < $3",
                &[
                    &org.0,
                    &day_start(first),
                    &day_start(last.saturating_add(1)),
                ],
            )
            .await
            .map_err(db)?;
        let mut unfolded = Sums::new();
        let undecodable = live
            .iter()
            .filter(|row| !add_trace(&mut unfolded, row, user))
            .count();
        said_undecodable(undecodable);
        tx.commit().await.map_err(db)?;
        for (key, sum) in unfolded.range(start.clone()..end) {
            sums.entry(key.clone()).or_default().merge(sum);
        }
        let at = start.len() - 4;
        Ok(sums
            .into_iter()
            .filter_map(|(key, day)| {
                let (number, agent, model) = day_of_key(at, &key)?;
                Some((number, agent, model, day))
            })
            .collect())
    }
}
