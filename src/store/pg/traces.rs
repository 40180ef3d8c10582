//! Reading traces on PostgreSQL (`GET /api/logs`): one by id, and a
//! listing newest first by `(started_at, id)`, read in chunks and filtered
//! as sled's listing filters its index (scope, then the query), reading at
//! most [`SCAN_BUDGET`] traces a page. Times compare at the microsecond,
//! the columns' precision.

use chrono::{DateTime, Utc};
use confer_actors::{StoreError, StoreFuture, Trace, TraceId, TraceRecord};
use tokio_postgres::types::Json;

use super::records::{PgStore, V, db, micro};
use crate::store::traces::{SCAN_BUDGET, TracePage, TraceQuery, TraceScope};

impl PgStore {
    /// See `ThreadRecords::trace`.
    pub(super) fn stored_trace(&self, id: TraceId) -> StoreFuture<Option<TraceRecord>> {
        let store = self.clone();
        Box::pin(async move {
            store
                .one("SELECT v, body FROM traces WHERE id = $1", &[&id.0])
                .await
        })
    }

    /// See `ThreadRecords::traces`.
    pub(super) fn stored_traces(
        &self,
        scope: TraceScope,
        query: TraceQuery,
    ) -> StoreFuture<TracePage> {
        let store = self.clone();
        Box::pin(async move {
            let session = store.session().await?;
            let (org, agent, thread) = match &scope {
                TraceScope::Org(org) | TraceScope::User(org, _) => (Some(org.0), query.agent, None),
                TraceScope::Agent(org, agent) => (Some(org.0), Some(*agent), None),
                TraceScope::Thread(thread) => (None, query.agent, Some(thread.0)),
            };
            let since = query.since.map(micro);
            let until = query.until.map(micro);
            let chunk = i64::try_from((query.limit + 1).clamp(100, SCAN_BUDGET)).unwrap_or(100);
            let mut cursor = query.before.map(|(at, id)| (micro(at), id.0));
            let mut page = TracePage::default();
            let mut scanned = 0;
            loop {
                let (at, id): (Option<DateTime<Utc>>, Option<uuid::Uuid>) = cursor.unzip();
                let rows = session
                    .db()
                    .query(
                        "SELECT v, body -> 'trace' AS body, started_at, id FROM traces
                         WHERE ($1::uuid IS NULL OR org_id = $1)
                           AND ($2::uuid IS NULL OR agent_id = $2)
                           AND ($3::uuid IS NULL OR thread_id = $3)
                           AND ($4::timestamptz IS NULL OR started_at >= $4)
                           AND ($5::timestamptz IS NULL OR started_at < $5)
                           AND ($6::timestamptz IS NULL OR (started_at, id) < ($6, $7::uuid))
                         ORDER BY started_at DESC, id DESC LIMIT $8",
                        &[
                            &org,
                            &agent.map(|a| a.0),
                            &thread,
                            &since,
                            &until,
                            &at,
                            &id,
                            &chunk,
                        ],
                    )
                    .await
                    .map_err(db)?;
                let read = rows.len();
                for row in rows {
                    if scanned == SCAN_BUDGET {
                        page.next = cursor.map(|(at, id)| (at, TraceId(id)));
                        return Ok(page);
                    }
                    scanned += 1;
                    cursor = Some((row.get("started_at"), row.get("id")));
                    let version: i16 = row.get("v");
                    if version != V {
                        return Err(StoreError::Codec(format!(
                            "unknown record version {version}"
                        )));
                    }
                    let Json(trace): Json<Trace> = row
                        .try_get("body")
                        .map_err(|e| StoreError::Codec(e.to_string()))?;
                    if !scope.holds(&trace) || !query.accepts(&trace) {
                        continue;
                    }
                    if page.traces.len() == query.limit {
                        page.next = page.traces.last().map(|t| (t.started_at, t.id));
                        return Ok(page);
                    }
                    page.traces.push(trace);
                }
                if read < usize::try_from(chunk).unwrap_or(usize::MAX) {
                    return Ok(page);
                }
            }
        })
    }
}
