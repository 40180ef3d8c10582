//! `confer export` and `GET /api/admin/export` on PostgreSQL (`scale.md`
//! §6: beside live nodes). The export is written by a blocking thread
//! (`crate::export`); [`PgScan`] reads its records a page at a time, each
//! page a statement run on `runtime`, in the order sled scans them (ids
//! compare as their bytes in both stores), so memory holds one page.

use chrono::{DateTime, Utc};
use confer_actors::{Agent, Message, OrgId, StoreError, Thread, ThreadId, UsageRecord};
use serde::de::DeserializeOwned;
use tokio::runtime::Handle;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::records::{PgStore, db, record};
use crate::export::{ExportScan, Visit};
use crate::store::port::OrgRecords;

/// Rows one page reads.
pub const PAGE: i64 = 500;

/// The export's reads on a PostgreSQL store, from a thread outside the
/// runtime that drives the store's connections.
pub struct PgScan {
    store: PgStore,
    runtime: Handle,
}

impl PgScan {
    /// A scan of `store`, its statements run on `runtime` (the caller is a
    /// blocking thread, never one of `runtime`'s workers).
    pub fn new(store: PgStore, runtime: Handle) -> Self {
        Self { store, runtime }
    }

    /// One page of `sql`, whose last parameter is the page's size.
    fn page(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>, StoreError> {
        self.runtime.block_on(async {
            let session = self.store.session().await?;
            session.db().query(sql, params).await.map_err(db)
        })
    }

    /// Visits every record of `pages` (a keyset query: `after` is the key
    /// of the last row read, `None` before the first page), one page at a
    /// time; `key` reads a row's key.
    fn each<T: DeserializeOwned, K>(
        &self,
        mut pages: impl FnMut(&Option<K>) -> Result<Vec<Row>, StoreError>,
        key: impl Fn(&Row) -> K,
        visit: Visit<'_, T>,
    ) -> Result<(), StoreError> {
        let mut after: Option<K> = None;
        loop {
            let rows = pages(&after)?;
            let full = rows.len() as i64 == PAGE;
            for row in &rows {
                visit(record(row)?)?;
            }
            match rows.last() {
                Some(last) if full => after = Some(key(last)),
                _ => return Ok(()),
            }
        }
    }
}

impl PgScan {
    /// Every record of `org` that `sql` pages by id (`$1` the org, `$2` the
    /// last id read, `$3` the page's size).
    fn each_of_org<T: DeserializeOwned>(
        &self,
        sql: &str,
        org: OrgId,
        visit: Visit<'_, T>,
    ) -> Result<(), StoreError> {
        self.each(
            |after: &Option<uuid::Uuid>| self.page(sql, &[&org.0, after, &PAGE]),
            |row| row.get("id"),
            visit,
        )
    }
}

impl ExportScan for PgScan {
    fn org_ids(&self) -> Result<Vec<OrgId>, StoreError> {
        let orgs = self.runtime.block_on(self.store.orgs())?;
        let mut ids: Vec<OrgId> = orgs.into_iter().map(|o| o.id).collect();
        ids.sort_by_key(|id| *id.as_bytes());
        Ok(ids)
    }

    fn each_agent(&self, org: OrgId, visit: Visit<'_, Agent>) -> Result<(), StoreError> {
        self.each_of_org(
            "SELECT id, v, body FROM agents WHERE org_id = $1 AND ($2::uuid IS NULL OR id > $2)
             ORDER BY id LIMIT $3",
            org,
            visit,
        )
    }

    fn each_thread(&self, org: OrgId, visit: Visit<'_, Thread>) -> Result<(), StoreError> {
        self.each_of_org(
            "SELECT id, v, body FROM threads WHERE org_id = $1 AND ($2::uuid IS NULL OR id > $2)
             ORDER BY id LIMIT $3",
            org,
            visit,
        )
    }

    fn each_message(&self, thread: ThreadId, visit: Visit<'_, Message>) -> Result<(), StoreError> {
        self.each(
            |after: &Option<i64>| {
                self.page(
                    "SELECT seq, v, body FROM messages WHERE thread_id = $1 AND seq > $2
                     ORDER BY seq LIMIT $3",
                    &[&thread.0, &after.unwrap_or(0), &PAGE],
                )
            },
            |row| row.get("seq"),
            visit,
        )
    }

    fn each_usage(
        &self,
        org: OrgId,
        since: Option<DateTime<Utc>>,
        visit: Visit<'_, UsageRecord>,
    ) -> Result<(), StoreError> {
        // `created_at` is unique within an org: the page's key.
        self.each(
            |after: &Option<DateTime<Utc>>| {
                let (from, strictly) = match after {
                    Some(after) => (Some(*after), true),
                    None => (since, false),
                };
                self.page(
                    "SELECT created_at, v, body FROM usage_records
                     WHERE org_id = $1 AND ($2::timestamptz IS NULL
                        OR created_at > $2 OR (NOT $3 AND created_at = $2))
                     ORDER BY created_at LIMIT $4",
                    &[&org.0, &from, &strictly, &PAGE],
                )
            },
            |row| row.get("created_at"),
            visit,
        )
    }
}
