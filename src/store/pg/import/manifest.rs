//! The manifest (`scale.md` §6): per kind, how many records and the
//! SHA-256 of their canonical JSON (keys sorted, one line each) in sled's
//! key order. `confer migrate` compares the sled store's with the copy's,
//! and `confer check` prints it on either store: equal lines, equal
//! records.

use confer_actors::{Agent, ContextMessage, Message, StoreError, Thread, UsageRecord};
use futures_util::TryStreamExt;
use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio_postgres::GenericClient;
use tokio_postgres::types::Json;

use super::kinds::{KINDS, Kind, Line};
use super::lines::{
    avatar_line, blob_part_line, blob_ref_line, chunk_vector_line, deleted_thread_line,
    keyed_adoption_line, keyed_thread_line, knowledge_purge_line, publication_day_line,
    skill_file_line, trace_day_line,
};
use super::source::SledSource;
use crate::store::SledStore;
use crate::store::pg::records::{V, db};
use crate::store::threads::DeletedThread;

/// One kind's count and digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KindDigest {
    pub table: &'static str,
    pub count: u64,
    /// Hex SHA-256 of the lines.
    pub sha256: String,
}

/// Every kind's digest, in [`KINDS`] order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    pub kinds: Vec<KindDigest>,
}

impl Manifest {
    /// One line per kind: `manifest {kind} {count} {sha256}`.
    pub fn lines(&self) -> Vec<String> {
        self.kinds
            .iter()
            .map(|k| format!("manifest {} {} {}", k.table, k.count, k.sha256))
            .collect()
    }

    /// The kinds whose digests differ from `other`'s.
    pub fn differences(&self, other: &Manifest) -> Vec<&'static str> {
        self.kinds
            .iter()
            .zip(&other.kinds)
            .filter(|(a, b)| a != b)
            .map(|(a, _)| a.table)
            .collect()
    }
}

/// A kind's digest as its lines are added.
pub(super) struct Lines {
    table: &'static str,
    count: u64,
    sha: Sha256,
}

impl Lines {
    pub fn new(kind: &Kind) -> Self {
        Self {
            table: kind.table,
            count: 0,
            sha: Sha256::new(),
        }
    }

    pub fn add(&mut self, line: &[u8]) {
        self.sha.update(line);
        self.sha.update(b"\n");
        self.count += 1;
    }

    pub fn finish(self) -> KindDigest {
        KindDigest {
            table: self.table,
            count: self.count,
            sha256: hex::encode(self.sha.finalize()),
        }
    }
}

/// The manifest of a sled store.
pub fn of_sled(store: &SledStore) -> Result<Manifest, StoreError> {
    let source = SledSource { store };
    let mut kinds = Vec::new();
    for kind in KINDS {
        let mut lines = Lines::new(kind);
        for row in source.rows(kind)? {
            lines.add(&row?.line);
        }
        kinds.push(lines.finish());
    }
    Ok(Manifest { kinds })
}

/// The manifest of the PostgreSQL store `client` reads (in the caller's
/// snapshot); each record that does not decode as its kind is named in
/// `problems`.
pub async fn of_postgres(
    client: &impl GenericClient,
    problems: &mut Vec<String>,
) -> Result<Manifest, StoreError> {
    let mut kinds = Vec::new();
    for kind in KINDS {
        let mut lines = Lines::new(kind);
        let columns = match kind.line {
            Line::Body => "v, body",
            Line::DeletedThread => "thread_id, org_id, agent_id, created_at, deleted_at",
            Line::PublicationDay => "publication_id, day, tokens",
            Line::KeyedThread => "org_id, key_hash, request, thread_id, created_at",
            Line::TraceDay => "key, body",
            Line::SkillFile => "skill_id, path, bytes",
            Line::KnowledgePurge => "doc_id, generation, org_id, sha256",
            Line::BlobRef => "org_id, name, size, refs",
            Line::BlobPart => "org_id, name, n, data",
            Line::ChunkVector => "doc_id, generation, n, model, components",
            Line::Avatar => "agent_id, png",
            Line::KeyedAdoption => "org_id, key_hash, request, answer, created_at",
        };
        let sql = format!(
            "SELECT {columns} FROM {} ORDER BY {}",
            kind.table, kind.order
        );
        each_row(client, &sql, |row| {
            let line = match kind.line {
                Line::Body => {
                    let version: i16 = row.get(0);
                    let Json(body): Json<Value> = row.get(1);
                    if version != V {
                        problems.push(format!(
                            "a {} row has unknown version {version}",
                            kind.table
                        ));
                    } else if let Err(e) = decodes(kind.table, &body) {
                        problems.push(format!("a {} row does not decode: {e}", kind.table));
                    }
                    serde_json::to_vec(&body).map_err(|e| StoreError::Codec(e.to_string()))?
                }
                Line::DeletedThread => deleted_thread_line(
                    row.get(0),
                    &DeletedThread {
                        org_id: confer_actors::OrgId(row.get(1)),
                        agent_id: confer_actors::AgentId(row.get(2)),
                        created_at: row.get(3),
                        deleted_at: row.get(4),
                    },
                ),
                Line::PublicationDay => publication_day_line(row.get(0), row.get(1), row.get(2)),
                Line::KeyedThread => keyed_thread_line(
                    row.get(0),
                    row.get::<_, &[u8]>(1),
                    row.get(2),
                    row.get(3),
                    row.get(4),
                ),
                Line::TraceDay => trace_day_line(row.get(0), row.get(1)),
                Line::SkillFile => skill_file_line(row.get(0), row.get(1), row.get(2)),
                Line::KnowledgePurge => {
                    knowledge_purge_line(row.get(0), row.get(1), row.get(2), row.get(3))
                }
                Line::BlobRef => blob_ref_line(row.get(0), row.get(1), row.get(2), row.get(3)),
                Line::BlobPart => blob_part_line(row.get(0), row.get(1), row.get(2), row.get(3)),
                Line::ChunkVector => {
                    chunk_vector_line(row.get(0), row.get(1), row.get(2), row.get(3), row.get(4))
                }
                Line::Avatar => avatar_line(row.get(0), row.get(1)),
                Line::KeyedAdoption => keyed_adoption_line(
                    row.get(0),
                    row.get::<_, &[u8]>(1),
                    row.get(2),
                    row.get(3),
                    row.get(4),
                ),
            };
            lines.add(&line);
            Ok(())
        })
        .await?;
        kinds.push(lines.finish());
    }
    Ok(Manifest { kinds })
}

/// Calls `visit` with each row `sql` reads, as they stream in (a table is
/// never held whole).
pub(super) async fn each_row(
    client: &impl GenericClient,
    sql: &str,
    mut visit: impl FnMut(tokio_postgres::Row) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let rows = client
        .query_raw(sql, std::iter::empty::<i32>())
        .await
        .map_err(db)?;
    futures_util::pin_mut!(rows);
    while let Some(row) = rows.try_next().await.map_err(db)? {
        visit(row)?;
    }
    Ok(())
}

/// Whether `body` decodes as the record `table` keeps.
fn decodes(table: &str, body: &Value) -> Result<(), serde_json::Error> {
    fn as_<T: for<'de> Deserialize<'de>>(body: &Value) -> Result<(), serde_json::Error> {
        T::deserialize(body).map(drop)
    }
    match table {
        "orgs" => as_::<crate::store::records::Org>(body),
        "api_keys" => as_::<crate::store::records::ApiKey>(body),
        "projects" => as_::<crate::projects::Project>(body),
        "project_members" => as_::<crate::projects::Member>(body),
        "agents" => as_::<Agent>(body),
        "org_settings" => as_::<crate::publishing::OrgSettings>(body),
        "publications" => as_::<crate::publishing::Publication>(body),
        "skills" => as_::<crate::skills::Skill>(body),
        "skill_attachments" => as_::<crate::store::skills::SkillAttachment>(body),
        "mcp_servers" => as_::<crate::store::mcps::McpServer>(body),
        "mcp_attachments" => as_::<crate::store::mcps::McpAttachment>(body),
        "oauth_registrations" => as_::<crate::store::oauth::OAuthRegistration>(body),
        "oauth_tokens" => as_::<crate::store::oauth::StoredToken>(body),
        "integrations" => as_::<crate::store::integrations::Integration>(body),
        "integration_attachments" => as_::<crate::store::integrations::IntegrationAttachment>(body),
        "memories" => as_::<crate::knowledge::memory::Memory>(body),
        "memory_forgets" => as_::<crate::store::knowledge::memories::Forget>(body),
        "documents" => as_::<crate::knowledge::Document>(body),
        "chunks" => as_::<crate::knowledge::Chunk>(body),
        "embedding_configs" => as_::<crate::knowledge::embedding_config::EmbeddingConfig>(body),
        "marketplace_profiles" => as_::<crate::marketplace::profile::Profile>(body),
        "tools" => as_::<crate::store::tools::OrgTool>(body),
        "threads" => as_::<Thread>(body),
        "messages" => as_::<Message>(body),
        "context_entries" => as_::<ContextMessage>(body),
        "keyed_sends" => as_::<confer_actors::IdempotencyRecord>(body),
        "participants" => as_::<confer_actors::Participant>(body),
        "plans" => as_::<crate::plans::Plan>(body),
        "scheduled_tasks" => as_::<crate::scheduler::ScheduledTask>(body),
        "schedule_outbox" => as_::<crate::scheduler::OutboxSend>(body),
        "usage_records" => as_::<UsageRecord>(body),
        "traces" => as_::<confer_actors::TraceRecord>(body),
        // Configurations are of several types, told apart by their row's kind.
        _ => Ok(()),
    }
}
