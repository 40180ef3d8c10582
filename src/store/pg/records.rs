//! [`PgStore`]: the records on PostgreSQL (`scale.md` §2). A record is
//! kept as the codec's JSON in a `json` column with its version in `v`
//! (`jsonb` for threads, agents, keyed sends and jobs, whose fields
//! statements read or change; `jsonb` refuses U+0000, so the rest keep text as written),
//! sealed fields as sealed as on sled; columns hold its keys. What both
//! stores share lives here: the record codec, the mapping of driver
//! failures to [`StoreError`], and instants at the store's precision.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use confer_actors::StoreError;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio_postgres::Row;
use tokio_postgres::types::{Json, ToSql};

use super::{Database, PgError, Session};
use crate::secrets::SecretBox;
use crate::store::TraceListener;
use crate::store::codec::RECORD_VERSION;

/// The records on PostgreSQL: the pool, and the key that seals and opens
/// secret fields (the same on every node, checked at start).
#[derive(Clone)]
pub struct PgStore {
    pub(crate) database: Database,
    pub(crate) secrets: Arc<SecretBox>,
    /// Told each trace a committed append stored (the OTLP exporter).
    pub(crate) trace_listener: Arc<std::sync::OnceLock<TraceListener>>,
    /// Threads one publication may hold (`CONFER_PUBLIC_MAX_THREADS`).
    pub(crate) public_max_threads: Arc<std::sync::atomic::AtomicU64>,
}

impl PgStore {
    /// The store on `database`, migrated and key-checked by
    /// [`super::meta::prepare`] before.
    pub fn new(database: Database, secrets: Arc<SecretBox>) -> Self {
        Self {
            database,
            secrets,
            trace_listener: Arc::default(),
            public_max_threads: Arc::new(std::sync::atomic::AtomicU64::new(100_000)),
        }
    }

    /// The database (for the cluster's own tables).
    pub fn database(&self) -> &Database {
        &self.database
    }

    /// A pooled session, or why there is none.
    pub(crate) async fn session(&self) -> Result<Session, StoreError> {
        self.database.session().await.map_err(store_error)
    }

    /// The record of the row `sql` finds (its `v` and `body`), if any.
    pub(crate) async fn one<T: DeserializeOwned>(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<T>, StoreError> {
        let session = self.session().await?;
        let row = session.db().query_opt(sql, params).await.map_err(db)?;
        row.map(|row| record(&row)).transpose()
    }

    /// The records of every row `sql` finds, in its order.
    pub(crate) async fn all<T: DeserializeOwned>(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<T>, StoreError> {
        let session = self.session().await?;
        let rows = session.db().query(sql, params).await.map_err(db)?;
        rows.iter().map(record).collect()
    }

    /// Runs one statement `sql` on a pooled session; the rows it changed.
    pub(crate) async fn execute(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<u64, StoreError> {
        let session = self.session().await?;
        session.db().execute(sql, params).await.map_err(db)
    }
}

/// A driver failure as the engine sees it: the database did not answer or
/// refused this statement; nothing of the transaction was kept. The detail
/// is a SQLSTATE, never a connection string.
pub(crate) fn store_error(error: PgError) -> StoreError {
    StoreError::Unreachable(error.to_string())
}

/// A read-only REPEATABLE READ transaction on `client`: every statement
/// in it sees one snapshot (a manifest, a check, analytics' sums and the
/// traces not folded into them).
pub(crate) async fn snapshot(
    client: &mut tokio_postgres::Client,
) -> Result<tokio_postgres::Transaction<'_>, tokio_postgres::Error> {
    client
        .build_transaction()
        .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .await
}

/// Holds the advisory lock (`class`, `key`) until `tx` ends: what a
/// count-then-write (a cap, a queue, a free slug) is decided under.
pub(crate) async fn hold_lock(
    tx: &impl tokio_postgres::GenericClient,
    class: i32,
    key: uuid::Uuid,
) -> Result<(), StoreError> {
    tx.execute(
        "SELECT pg_advisory_xact_lock($1, hashtext($2::text))",
        &[&class, &key.to_string()],
    )
    .await
    .map_err(db)?;
    Ok(())
}

/// [`store_error`] of a driver error.
pub(crate) fn db(error: tokio_postgres::Error) -> StoreError {
    store_error(PgError::from(error))
}

/// Whether `error` is a unique index refusing a row (a taken name or slug).
pub(crate) fn unique_violation(error: &tokio_postgres::Error) -> bool {
    error
        .as_db_error()
        .is_some_and(|e| e.code() == &tokio_postgres::error::SqlState::UNIQUE_VIOLATION)
}

/// `v` of a record this build writes.
pub(crate) const V: i16 = RECORD_VERSION as i16;

/// `record` bound as a `json` or `jsonb` parameter.
pub(crate) fn body<T: Serialize>(record: &T) -> Json<&T> {
    Json(record)
}

/// `record` bound as a `jsonb` parameter, or [`StoreError::Unstorable`]
/// naming its first field that holds U+0000: `jsonb` refuses that
/// character, and the caller should learn which field to change rather
/// than see the statement fail.
pub(crate) fn jsonb<T: Serialize>(record: &T) -> Result<Json<&T>, StoreError> {
    let value = serde_json::to_value(record).map_err(|e| StoreError::Codec(e.to_string()))?;
    match nul_path(&value) {
        None => Ok(Json(record)),
        Some(path) => Err(StoreError::Unstorable(path)),
    }
}

/// The dotted path of the first string (or object key) in `value` that
/// holds U+0000.
fn nul_path(value: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    match value {
        Value::String(text) => text.contains('\0').then(String::new),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| nul_path(item).map(|rest| join_path(&i.to_string(), &rest))),
        Value::Object(fields) => fields.iter().find_map(|(name, field)| {
            if name.contains('\0') {
                return Some(name.replace('\0', "\\u0000"));
            }
            nul_path(field).map(|rest| join_path(name, &rest))
        }),
        _ => None,
    }
}

fn join_path(head: &str, rest: &str) -> String {
    if rest.is_empty() {
        head.to_owned()
    } else {
        format!("{head}.{rest}")
    }
}

/// The record of `row`'s `v` and `body` columns, refusing a version this
/// build does not know (as sled's codec does).
pub(crate) fn record<T: DeserializeOwned>(row: &Row) -> Result<T, StoreError> {
    let version: i16 = row.try_get("v").map_err(db)?;
    if version != V {
        return Err(StoreError::Codec(format!(
            "unknown record version {version}"
        )));
    }
    let Json(record) = row
        .try_get::<_, Json<T>>("body")
        .map_err(|e| StoreError::Codec(e.to_string()))?;
    Ok(record)
}

/// The record of `row`'s `{prefix}v` and `{prefix}body` columns, `None`
/// when they are null (a left join that found nothing).
pub(crate) fn joined<T: DeserializeOwned>(
    row: &Row,
    prefix: &str,
) -> Result<Option<T>, StoreError> {
    let version: Option<i16> = row.try_get(format!("{prefix}v").as_str()).map_err(db)?;
    let Some(version) = version else {
        return Ok(None);
    };
    if version != V {
        return Err(StoreError::Codec(format!(
            "unknown record version {version}"
        )));
    }
    let Json(record) = row
        .try_get::<_, Json<T>>(format!("{prefix}body").as_str())
        .map_err(|e| StoreError::Codec(e.to_string()))?;
    Ok(Some(record))
}

/// `at` at the microsecond, PostgreSQL's precision: a record's
/// `created_at` is truncated so its body and its column agree.
pub(crate) fn micro(at: DateTime<Utc>) -> DateTime<Utc> {
    crate::store::keys::from_micros(crate::store::keys::micros(at))
}

/// One microsecond later: the next try of an instant unique within an org.
pub(crate) fn next_micro(at: DateTime<Utc>) -> DateTime<Utc> {
    at + chrono::Duration::microseconds(1)
}

/// How many rows a page of `limit` reads: one more, to know whether a
/// next page exists.
pub(crate) fn page_fetch(limit: usize) -> i64 {
    i64::try_from(limit.saturating_add(1)).unwrap_or(i64::MAX)
}

/// A page of `limit` from the rows of a newest-first query that read
/// [`page_fetch`] rows: its cursor is the last item's `created_at` when
/// more follow, as sled's timeline pages.
pub(crate) fn page<T: DeserializeOwned>(
    rows: &[Row],
    limit: usize,
    created_at: impl Fn(&T) -> DateTime<Utc>,
) -> Result<crate::store::Page<T>, StoreError> {
    let items = rows.iter().map(record).collect::<Result<Vec<T>, _>>()?;
    Ok(page_of(items, limit, created_at))
}

/// A page of `limit` from the [`page_fetch`] items of a newest-first
/// query, however they were decoded.
pub(crate) fn page_of<T>(
    mut items: Vec<T>,
    limit: usize,
    created_at: impl Fn(&T) -> DateTime<Utc>,
) -> crate::store::Page<T> {
    let more = items.len() > limit;
    items.truncate(limit);
    let next_cursor = more.then(|| items.last().map(&created_at)).flatten();
    crate::store::Page { items, next_cursor }
}

impl PgStore {
    /// A newest-first page of the threads `sql` selects (its `v` and
    /// `body`, the page's `LIMIT` its last parameter, [`page_fetch`] rows).
    pub(crate) async fn thread_page(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
        limit: usize,
    ) -> Result<crate::store::Page<confer_actors::Thread>, StoreError> {
        let session = self.session().await?;
        let rows = session.db().query(sql, params).await.map_err(db)?;
        page(&rows, limit, |t: &confer_actors::Thread| t.created_at)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_nul_is_found_by_its_field_s_path() {
        let clean = json!({"title": "a", "metadata": {"k": ["x", 1]}});
        assert!(jsonb(&clean).is_ok());
        let cases = [
            (json!({"title": "a\u{0}"}), "title"),
            (
                json!({"t": "", "metadata": {"k": ["x", "\u{0}"]}}),
                "metadata.k.1",
            ),
            (json!({"metadata": {"a\u{0}": 1}}), "metadata.a\\u0000"),
        ];
        for (record, path) in cases {
            match jsonb(&record) {
                Err(StoreError::Unstorable(found)) => assert_eq!(found, path),
                other => panic!("{record}: {other:?}"),
            }
        }
    }
}
