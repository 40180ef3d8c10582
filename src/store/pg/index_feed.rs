//! The search index's change feed on PostgreSQL (`scale.md` §5): each
//! node's tantivy index is a cache of the rows, and reads `index_changes`
//! after the last `seq` it committed. A write takes [`INDEX_FEED_LOCK`]
//! before its row and keeps it until it commits, so rows commit in `seq`
//! order and a reader never passes a change still uncommitted. The sweep
//! removes rows after [`CHANGES_KEPT`] and records the last one removed
//! as the floor: a node behind it rebuilds its index from the rows.

use chrono::{DateTime, TimeDelta, Utc};
use confer_actors::StoreError;
use tokio_postgres::Transaction;
use tokio_postgres::types::Json;

use super::records::{PgStore, db};
use crate::store::knowledge::changes::IndexChange;

/// The advisory lock (`pg_advisory_xact_lock(INDEX_FEED_LOCK, 0)`) a
/// transaction holds from its first change row to its commit.
const INDEX_FEED_LOCK: i32 = 18;
/// How long a change is kept: a node stopped longer rebuilds its index.
pub const CHANGES_KEPT: TimeDelta = TimeDelta::days(7);
/// `meta` key of the last `seq` the sweep removed.
const FLOOR: &str = "index_changes_floor";
/// `meta` key of the feed's name.
const FEED: &str = "index_feed";

fn seq_of(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

/// Logs `changes` in `tx`, in order; the last one's `seq` (0 for none).
pub(crate) async fn log_changes(
    tx: &Transaction<'_>,
    changes: &[IndexChange],
) -> Result<u64, StoreError> {
    if changes.is_empty() {
        return Ok(0);
    }
    tx.execute("SELECT pg_advisory_xact_lock($1, 0)", &[&INDEX_FEED_LOCK])
        .await
        .map_err(db)?;
    // Delivered at commit: every node's index reads the feed at once.
    tx.execute("NOTIFY confer_changes", &[]).await.map_err(db)?;
    let bodies: Vec<Json<&IndexChange>> = changes.iter().map(Json).collect();
    let row = tx
        .query_one(
            "WITH added AS (
                INSERT INTO index_changes (body)
                SELECT c.body FROM unnest($1::json[]) WITH ORDINALITY AS c(body, n) ORDER BY c.n
                RETURNING seq)
             SELECT max(seq) FROM added",
            &[&bodies],
        )
        .await
        .map_err(db)?;
    Ok(seq_of(row.get(0)))
}

impl PgStore {
    /// Up to `limit` changes after `seq`; `None` when `seq` is behind the
    /// floor (changes it never applied are gone).
    pub(crate) async fn changes_after(
        &self,
        seq: u64,
        limit: usize,
    ) -> Result<Option<Vec<(u64, IndexChange)>>, StoreError> {
        let session = self.session().await?;
        let after = i64::try_from(seq).unwrap_or(i64::MAX);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = session
            .db()
            .query(
                "SELECT seq, body, (SELECT value::bigint FROM meta WHERE key = 'index_changes_floor')
                 FROM (SELECT 0::bigint AS seq, NULL::json AS body
                       UNION ALL
                       (SELECT seq, body FROM index_changes WHERE seq > $1 ORDER BY seq LIMIT $2)) c
                 ORDER BY seq",
                &[&after, &limit],
            )
            .await
            .map_err(db)?;
        let floor: Option<i64> = rows.first().and_then(|row| row.get(2));
        if floor.is_some_and(|floor| after < floor) {
            return Ok(None);
        }
        let mut changes = Vec::with_capacity(rows.len());
        for row in rows.iter().skip(1) {
            let Json(change) = row
                .try_get::<_, Json<IndexChange>>(1)
                .map_err(|e| StoreError::Codec(format!("an index change: {e}")))?;
            changes.push((seq_of(row.get(0)), change));
        }
        Ok(Some(changes))
    }

    /// The last `seq` the sweep removed (0 when none was).
    pub(crate) async fn changes_floor(&self) -> Result<u64, StoreError> {
        let floor: Option<String> = self.meta_value(FLOOR).await?;
        Ok(floor.and_then(|f| f.parse().ok()).unwrap_or(0))
    }

    /// The feed's name, made by the migration that made the feed.
    pub(crate) async fn feed_name(&self) -> Result<String, StoreError> {
        Ok(self.meta_value(FEED).await?.unwrap_or_default())
    }

    async fn meta_value(&self, key: &str) -> Result<Option<String>, StoreError> {
        let session = self.session().await?;
        let row = session
            .db()
            .query_opt("SELECT value FROM meta WHERE key = $1", &[&key])
            .await
            .map_err(db)?;
        Ok(row.map(|row| row.get(0)))
    }

    /// Removes up to `batch` changes older than [`CHANGES_KEPT`] at `now`,
    /// raising the floor past them in the same statement; how many.
    pub(crate) async fn sweep_index_changes(
        &self,
        now: DateTime<Utc>,
        batch: i64,
    ) -> Result<u64, StoreError> {
        let session = self.session().await?;
        let row = session
            .db()
            .query_one(
                "WITH gone AS (
                    DELETE FROM index_changes WHERE seq IN (
                        SELECT seq FROM index_changes WHERE at < $1 ORDER BY seq LIMIT $2)
                    RETURNING seq),
                 floor AS (
                    INSERT INTO meta (key, value)
                    SELECT $3, max(seq)::text FROM gone HAVING count(*) > 0
                    ON CONFLICT (key) DO UPDATE
                    SET value = greatest(meta.value::bigint, EXCLUDED.value::bigint)::text,
                        updated_at = now()
                    RETURNING 1)
                 SELECT count(*) FROM gone",
                &[&(now - CHANGES_KEPT), &batch, &FLOOR],
            )
            .await
            .map_err(db)?;
        Ok(seq_of(row.get(0)))
    }
}
