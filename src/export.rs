//! `confer export` and `GET /api/admin/export` (`operations.md`): the
//! store as JSON Lines, one record per line, each in the API's response
//! shape with a `type` (`agent`, `thread`, `message`, `usage`); messages
//! also carry their `thread_id`. Secrets are not part of those shapes, so
//! none is written. Records go out one at a time as the store is scanned
//! ([`ExportScan`]: sled's trees, or PostgreSQL's rows a page at a time):
//! memory does not grow with the store.

use std::io::Write;

use chrono::{DateTime, Utc};
use confer_actors::{Agent, Message, OrgId, StoreError, Thread, ThreadId, UsageRecord};
use serde::Serialize;

use crate::api::agents::AgentView;
use crate::api::messages::MessageView;
use crate::api::threads::ThreadView;
use crate::api::usage::UsageView;
use crate::store::SledStore;

/// A visitor of one record of a scan; an error stops the scan.
pub type Visit<'a, T> = &'a mut dyn FnMut(T) -> Result<(), StoreError>;

/// What an export reads, in the order it writes: a store's records one at
/// a time, each kind in its key order.
pub trait ExportScan {
    /// Every org's id.
    fn org_ids(&self) -> Result<Vec<OrgId>, StoreError>;
    /// Every agent of `org` (soft-deleted ones too), by id.
    fn each_agent(&self, org: OrgId, visit: Visit<'_, Agent>) -> Result<(), StoreError>;
    /// Every thread of `org` (not deleted ones), by id.
    fn each_thread(&self, org: OrgId, visit: Visit<'_, Thread>) -> Result<(), StoreError>;
    /// Every listed message of `thread`, oldest first.
    fn each_message(&self, thread: ThreadId, visit: Visit<'_, Message>) -> Result<(), StoreError>;
    /// Every usage record of `org` made at or after `since`, oldest first.
    fn each_usage(
        &self,
        org: OrgId,
        since: Option<DateTime<Utc>>,
        visit: Visit<'_, UsageRecord>,
    ) -> Result<(), StoreError>;
}

impl ExportScan for SledStore {
    fn org_ids(&self) -> Result<Vec<OrgId>, StoreError> {
        Ok(self.orgs()?.into_iter().map(|o| o.id).collect())
    }

    fn each_agent(&self, org: OrgId, visit: Visit<'_, Agent>) -> Result<(), StoreError> {
        SledStore::each_agent(self, org, visit)
    }

    fn each_thread(&self, org: OrgId, visit: Visit<'_, Thread>) -> Result<(), StoreError> {
        SledStore::each_thread(self, org, visit)
    }

    fn each_message(&self, thread: ThreadId, visit: Visit<'_, Message>) -> Result<(), StoreError> {
        SledStore::each_message(self, thread, visit)
    }

    fn each_usage(
        &self,
        org: OrgId,
        since: Option<DateTime<Utc>>,
        visit: Visit<'_, UsageRecord>,
    ) -> Result<(), StoreError> {
        SledStore::each_usage(self, org, since, visit)
    }
}

/// Which records an export holds.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExportFilter {
    /// One org (else every org).
    pub org: Option<OrgId>,
    /// Records created or changed at or after this instant (else all).
    pub since: Option<DateTime<Utc>>,
}

/// How many records of each kind an export wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExportCounts {
    pub agents: u64,
    pub threads: u64,
    pub messages: u64,
    pub usage: u64,
}

impl ExportCounts {
    /// All records written.
    pub fn total(&self) -> u64 {
        self.agents + self.threads + self.messages + self.usage
    }
}

/// One line of the export.
#[derive(Serialize)]
struct Line<'a, T: Serialize> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    thread_id: Option<&'a str>,
    /// A soft-deleted agent (its threads stay readable, so it is exported).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    deleted: bool,
    #[serde(flatten)]
    record: T,
}

fn write_line<T: Serialize>(out: &mut impl Write, line: &Line<'_, T>) -> Result<(), StoreError> {
    serde_json::to_writer(&mut *out, line).map_err(|e| StoreError::Engine(e.to_string()))?;
    out.write_all(b"\n")
        .map_err(|e| StoreError::Engine(format!("writing the export: {e}")))
}

/// Writes the export of `filter` to `out`.
pub fn export(
    store: &dyn ExportScan,
    out: &mut impl Write,
    filter: ExportFilter,
) -> Result<ExportCounts, StoreError> {
    let mut counts = ExportCounts::default();
    let orgs = match filter.org {
        Some(org) => vec![org],
        None => store.org_ids()?,
    };
    let recent = |at: DateTime<Utc>| filter.since.is_none_or(|since| at >= since);
    for org in orgs {
        store.each_agent(org, &mut |agent| {
            if !recent(agent.updated_at) {
                return Ok(());
            }
            counts.agents += 1;
            let deleted = agent.is_deleted();
            write_line(
                out,
                &Line {
                    kind: "agent",
                    thread_id: None,
                    deleted,
                    record: AgentView::from(agent),
                },
            )
        })?;
        store.each_thread(org, &mut |thread| {
            let id = thread.id;
            let id_text = id.to_string();
            if recent(thread.updated_at) {
                counts.threads += 1;
                write_line(
                    out,
                    &Line {
                        kind: "thread",
                        thread_id: None,
                        deleted: false,
                        record: ThreadView::from(thread),
                    },
                )?;
            }
            store.each_message(id, &mut |message| {
                if !recent(message.created_at) {
                    return Ok(());
                }
                counts.messages += 1;
                write_line(
                    out,
                    &Line {
                        kind: "message",
                        thread_id: Some(&id_text),
                        deleted: false,
                        record: MessageView::from(message),
                    },
                )
            })
        })?;
        store.each_usage(org, filter.since, &mut |record| {
            counts.usage += 1;
            write_line(
                out,
                &Line {
                    kind: "usage",
                    thread_id: None,
                    deleted: false,
                    record: UsageView::from(record),
                },
            )
        })?;
    }
    out.flush()
        .map_err(|e| StoreError::Engine(format!("writing the export: {e}")))?;
    Ok(counts)
}
