//! The rows of a stopped sled store, kind by kind, in sled's key order:
//! what `confer migrate` copies and what the manifest digests. A record
//! is copied as sled keeps it (large values read from their files, sealed
//! fields still sealed); the columns are taken from its fields and from
//! sled's counters, as the PostgreSQL store's own writes fill them.

use std::collections::HashMap;

use confer_actors::{Agent, ContextMessage, StoreError, Thread, ThreadId, UsageRecord};
use serde::Deserialize;
use serde_json::Value;
use tokio_postgres::types::{Json, ToSql};

use super::kinds::Kind;
use super::lines::{deleted_thread_line, keyed_thread_line, publication_day_line, trace_day_line};
use super::marketplace_rows::{Keyed, keyed_rows};
use crate::plans::Plan;
use crate::projects::{Member, Project};
use crate::scheduler::{OutboxSend, ScheduledTask};
use crate::store::codec::RECORD_VERSION;
use crate::store::keys::{from_micros, read_u64};
use crate::store::pg::records::{V, micro};
use crate::store::records::{ApiKey, Org};
use crate::store::threads::{DeletedThread, KeyedCreation};
use crate::store::tools::OrgTool;
use crate::store::{SledStore, engine};

/// One column's value.
pub(super) type Cell = Box<dyn ToSql + Sync + Send>;

/// A row of a kind: its columns, and its manifest line (canonical JSON).
pub(super) struct Row {
    pub cells: Vec<Cell>,
    pub line: Vec<u8>,
}

/// The rows of one kind, one at a time.
pub(super) type Rows<'a> = Box<dyn Iterator<Item = Result<Row, StoreError>> + 'a>;

pub(super) fn cell<T: ToSql + Sync + Send + 'static>(value: T) -> Cell {
    Box::new(value)
}

pub(super) fn codec(what: &str, detail: impl std::fmt::Display) -> StoreError {
    StoreError::Codec(format!("{what}: {detail}"))
}

/// The JSON of a record's stored bytes (the codec's version byte, then
/// JSON), and the record as `T`.
pub(super) fn record<T: for<'de> Deserialize<'de>>(
    what: &str,
    bytes: &[u8],
) -> Result<(T, Value), StoreError> {
    let json = match bytes.split_first() {
        Some((&RECORD_VERSION, json)) => json,
        _ => return Err(codec(what, "unknown record version")),
    };
    let value: Value = serde_json::from_slice(json).map_err(|e| codec(what, e))?;
    let typed = T::deserialize(&value).map_err(|e| codec(what, e))?;
    Ok((typed, value))
}

/// The row of `cells` and a body: the body is the last column, and the
/// manifest line.
pub(super) fn with_body(mut cells: Vec<Cell>, body: Value) -> Result<Row, StoreError> {
    let line = serde_json::to_vec(&body).map_err(|e| codec("a record", e))?;
    cells.push(cell(V));
    cells.push(cell(Json(body)));
    Ok(Row { cells, line })
}

pub(super) fn uuid_at(key: &[u8], at: usize) -> Result<uuid::Uuid, StoreError> {
    key.get(at..at + 16)
        .and_then(|b| uuid::Uuid::from_slice(b).ok())
        .ok_or_else(|| codec("a key", "too short"))
}

/// A sled tree's entries as rows.
pub(super) fn tree_rows<'a>(
    tree: &'a sled::Tree,
    mut row: impl FnMut(&[u8], &[u8]) -> Result<Row, StoreError> + 'a,
) -> Rows<'a> {
    Box::new(tree.iter().map(move |entry| {
        let (key, value) = entry.map_err(engine)?;
        row(&key, &value)
    }))
}

/// The rows `confer migrate` copies from `store`.
pub(super) struct SledSource<'a> {
    pub store: &'a SledStore,
}

impl<'a> SledSource<'a> {
    /// The rows of `kind`, in sled's key order.
    pub fn rows(&self, kind: &Kind) -> Result<Rows<'a>, StoreError> {
        let s = self.store;
        Ok(match kind.table {
            "orgs" => tree_rows(&s.orgs, |_, v| {
                let (org, body) = record::<Org>("an org", v)?;
                with_body(
                    vec![cell(org.id.0), cell(org.name), cell(org.created_at)],
                    body,
                )
            }),
            "api_keys" => tree_rows(&s.api_keys, move |_, v| {
                let (key, body) = record::<ApiKey>("an API key", v)?;
                let hash = hex::decode(&key.secret_sha256).map_err(|e| codec("an API key", e))?;
                let used = s
                    .api_key_used
                    .get(key.id.as_bytes())
                    .map_err(engine)?
                    .map(|b| from_micros(read_u64(&b)))
                    .or(key.last_used_at);
                with_body(
                    vec![
                        cell(key.id.0),
                        cell(key.org_id.0),
                        cell(hash),
                        cell(key.created_at),
                        cell(used),
                    ],
                    body,
                )
            }),
            "projects" => tree_rows(&s.projects.projects, |_, v| {
                let (project, body) = record::<Project>("a project", v)?;
                with_body(
                    vec![
                        cell(project.org_id.0),
                        cell(project.id.0),
                        cell(project.slug),
                        cell(project.created_at),
                    ],
                    body,
                )
            }),
            "project_members" => {
                let orgs = self.project_orgs()?;
                tree_rows(&s.projects.members, move |k, v| {
                    let project = uuid_at(k, 0)?;
                    let org = *orgs
                        .get(&project)
                        .ok_or_else(|| codec("a project member", "its project is gone"))?;
                    let (member, body) = record::<Member>("a project member", v)?;
                    with_body(vec![cell(org), cell(project), cell(member.user_id)], body)
                })
            }
            "agents" => tree_rows(&s.agents, |_, v| {
                let (agent, body) = record::<Agent>("an agent", v)?;
                with_body(
                    vec![
                        cell(agent.org_id.0),
                        cell(agent.id.0),
                        cell(agent.created_at),
                        cell(agent.project_id.map(|p| p.0)),
                    ],
                    body,
                )
            }),
            "agent_configs" => tree_rows(&s.agent_configs, |k, v| {
                let kind = *k.get(32).ok_or_else(|| codec("a configuration", "key"))?;
                let (_, body) = record::<Value>("a configuration", v)?;
                with_body(
                    vec![
                        cell(uuid_at(k, 0)?),
                        cell(uuid_at(k, 16)?),
                        cell(i16::from(kind)),
                    ],
                    body,
                )
            }),
            "tools" => tree_rows(&s.tools, |_, v| {
                let (tool, body) = record::<OrgTool>("a tool", v)?;
                with_body(
                    vec![
                        cell(tool.org_id.0),
                        cell(tool.id.0),
                        cell(tool.name),
                        cell(tool.created_at),
                    ],
                    body,
                )
            }),
            "threads" => tree_rows(&s.threads, move |_, v| {
                let (thread, body) = record::<Thread>("a thread", v)?;
                let counter = |tree: &sled::Tree| -> Result<i64, StoreError> {
                    let last = tree.get(thread.id.as_bytes()).map_err(engine)?;
                    Ok(last.map_or(0, |b| i64::try_from(read_u64(&b)).unwrap_or(i64::MAX)))
                };
                with_body(
                    vec![
                        cell(thread.org_id.0),
                        cell(thread.id.0),
                        cell(thread.agent_id.0),
                        cell(thread.created_at),
                        cell(thread.created_by.clone()),
                        cell(thread.origin.is_none()),
                        cell(crate::store::pg::threads::shard_of(&thread).sql()),
                        cell(counter(&s.thread_seqs)?),
                        cell(counter(&s.context_seqs)?),
                        cell(counter(&s.turn_seqs)?),
                        cell(thread.project_id.map(|p| p.0)),
                        cell(thread.publication_id.map(|p| p.0)),
                    ],
                    body,
                )
            }),
            "messages" => tree_rows(&s.messages, move |k, v| {
                let (thread, seq) = thread_seq(k)?;
                let bytes = s.values.read(ThreadId(thread), v)?;
                let (_, body) = record::<Value>("a message", &bytes)?;
                with_body(vec![cell(thread), cell(seq)], body)
            }),
            "context_entries" => tree_rows(&s.context, move |k, v| {
                let (thread, seq) = thread_seq(k)?;
                let bytes = s.values.read(ThreadId(thread), v)?;
                let (entry, body) = record::<ContextMessage>("a context entry", &bytes)?;
                let role = crate::store::pg::append::role(&entry);
                with_body(vec![cell(thread), cell(seq), cell(role)], body)
            }),
            // sled keeps keyed sends (thread ++ key) and keyed thread
            // creations (org ++ key) in one tree; a send's record has a turn.
            "keyed_sends" => keyed_rows(&s.idempotency, Keyed::Send, |k, v| {
                let (keyed, body) = record::<confer_actors::IdempotencyRecord>("a keyed send", v)?;
                let hash = k.get(16..).ok_or_else(|| codec("a keyed send", "key"))?;
                with_body(
                    vec![
                        cell(uuid_at(k, 0)?),
                        cell(hash.to_vec()),
                        cell(keyed.created_at),
                    ],
                    body,
                )
            }),
            "keyed_threads" => keyed_rows(&s.idempotency, Keyed::Thread, |k, v| {
                let (keyed, _) = record::<KeyedCreation>("a keyed thread creation", v)?;
                let org = uuid_at(k, 0)?;
                let hash = k
                    .get(16..)
                    .ok_or_else(|| codec("a keyed creation", "key"))?;
                let created_at = micro(keyed.created_at);
                Ok(Row {
                    line: keyed_thread_line(
                        org,
                        hash,
                        &keyed.request,
                        keyed.thread_id.0,
                        created_at,
                    ),
                    cells: vec![
                        cell(org),
                        cell(hash.to_vec()),
                        cell(keyed.request),
                        cell(keyed.thread_id.0),
                        cell(created_at),
                    ],
                })
            }),
            "participants" => tree_rows(&s.participants, |k, v| {
                let user = std::str::from_utf8(k.get(16..).unwrap_or_default())
                    .map_err(|e| codec("a participant", e))?;
                let (_, body) = record::<Value>("a participant", v)?;
                with_body(vec![cell(uuid_at(k, 0)?), cell(user.to_owned())], body)
            }),
            "plans" => tree_rows(&s.plans, |_, v| {
                let (plan, body) = record::<Plan>("a plan", v)?;
                with_body(
                    vec![
                        cell(plan.org_id.0),
                        cell(plan.id.0),
                        cell(plan.thread_id.0),
                        cell(plan.created_at),
                        cell(crate::store::pg::plans::version(&plan)),
                    ],
                    body,
                )
            }),
            "scheduled_tasks" => tree_rows(s.schedules.tasks(), |_, v| {
                let (task, body) = record::<ScheduledTask>("a scheduled task", v)?;
                with_body(
                    vec![
                        cell(task.org_id.0),
                        cell(task.agent_id.0),
                        cell(task.id.0),
                        cell(crate::store::pg::schedules::shard_of(&task).sql()),
                        cell(task.next_fire_at),
                    ],
                    body,
                )
            }),
            "schedule_outbox" => tree_rows(s.schedules.outbox(), |_, v| {
                let (send, body) = record::<OutboxSend>("a scheduled send", v)?;
                let shard = crate::cluster::Shard::of(send.thread_id).sql();
                with_body(
                    vec![cell(send.schedule_id.0), cell(send.slot), cell(shard)],
                    body,
                )
            }),
            "usage_records" => tree_rows(&s.usage, |_, v| {
                let (usage, body) = record::<UsageRecord>("a usage record", v)?;
                with_body(
                    vec![
                        cell(usage.org_id.0),
                        cell(usage.id.0),
                        cell(usage.created_at),
                        cell(usage.agent_id.0),
                        cell(usage.thread_id.map(|t| t.0)),
                        cell(usage.message_id.map(|m| m.0)),
                        cell(usage.publication_id.map(|p| p.0)),
                    ],
                    body,
                )
            }),
            "publication_days" => tree_rows(&s.publication_days, |k, v| {
                let publication = uuid_at(k, 0)?;
                let day = k
                    .get(16..20)
                    .and_then(|b| b.try_into().ok())
                    .map(u32::from_be_bytes)
                    .and_then(|d| i32::try_from(d).ok())
                    .ok_or_else(|| codec("a publication day", "key"))?;
                let tokens = i64::try_from(read_u64(v)).unwrap_or(i64::MAX);
                Ok(Row {
                    line: publication_day_line(publication, day, tokens),
                    cells: vec![cell(publication), cell(day), cell(tokens)],
                })
            }),
            "deleted_threads" => tree_rows(&s.deleted_threads, |k, v| {
                let thread = uuid_at(k, 0)?;
                let (marker, _) = record::<DeletedThread>("a deleted thread", v)?;
                let marker = DeletedThread {
                    created_at: micro(marker.created_at),
                    deleted_at: micro(marker.deleted_at),
                    ..marker
                };
                Ok(Row {
                    line: deleted_thread_line(thread, &marker),
                    cells: vec![
                        cell(thread),
                        cell(marker.org_id.0),
                        cell(marker.agent_id.0),
                        cell(marker.created_at),
                        cell(marker.deleted_at),
                    ],
                })
            }),
            "traces" => self.trace_rows()?,
            "trace_days" => tree_rows(&s.trace_days, |k, v| {
                Ok(Row {
                    line: trace_day_line(k, v),
                    cells: vec![cell(k.to_vec()), cell(v.to_vec())],
                })
            }),
            other => self
                .extra_rows(other)
                .or_else(|| self.knowledge_rows(other))
                .or_else(|| self.marketplace_rows(other))
                .ok_or_else(|| codec("a kind", format!("{other} is not copied")))?,
        })
    }

    /// Each project's org.
    fn project_orgs(&self) -> Result<HashMap<uuid::Uuid, uuid::Uuid>, StoreError> {
        let mut orgs = HashMap::new();
        for entry in self.store.projects.projects.iter() {
            let (key, _) = entry.map_err(engine)?;
            orgs.insert(uuid_at(&key, 16)?, uuid_at(&key, 0)?);
        }
        Ok(orgs)
    }
}

fn thread_seq(key: &[u8]) -> Result<(uuid::Uuid, i64), StoreError> {
    let seq = key
        .get(16..24)
        .map(read_u64)
        .and_then(|s| i64::try_from(s).ok())
        .ok_or_else(|| codec("an entry", "key"))?;
    Ok((uuid_at(key, 0)?, seq))
}
