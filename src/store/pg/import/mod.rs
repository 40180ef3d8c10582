//! `confer migrate --from DIR --to postgres://… [--replace]` (`scale.md`
//! §6): copies a stopped sled store into an empty PostgreSQL database.
//!
//! Order of work: refuse what cannot be copied (a kind PostgreSQL does not
//! keep yet, a sealed value DIR's key does not open, a target holding
//! records); mark the database (`meta.migration = in_progress`, so nodes
//! refuse to start); copy every kind ([`kinds::KINDS`]) with binary `COPY`
//! in batches of at most 4 MiB, in one transaction; enqueue the purge of
//! each deleted thread; compare the copy's manifest with DIR's; write the
//! key check and the manifest; clear the mark.

pub mod check;
mod extras;
mod jobs_of;
pub mod kinds;
mod kinds_knowledge;
mod kinds_marketplace;
mod knowledge_rows;
mod lines;
pub mod manifest;
mod marketplace_rows;
mod source;
mod traces;

use std::pin::pin;

use confer_actors::StoreError;
use tokio_postgres::Client;
use tokio_postgres::binary_copy::BinaryCopyInWriter;
use tokio_postgres::types::ToSql;

use self::kinds::KINDS;
use self::manifest::{Lines, Manifest};
use self::source::SledSource;
use super::meta::{KEY_CHECK, MIGRATION};
use super::migrate::{self, MIGRATIONS};
use super::records::snapshot;
use super::{Database, PgError};
use crate::secrets::SecretBox;
use crate::store::SledStore;

/// Rows of one `COPY` at most, in bytes of their manifest lines.
pub const BATCH_BYTES: usize = 4 << 20;

/// `meta` key of the manifest the last migration wrote.
pub const MANIFEST: &str = "manifest";

/// sled trees `confer migrate` copies, or derives from those it copies
/// (indexes, counters, aggregates the store recomputes). A non-empty tree
/// not listed holds a kind PostgreSQL does not keep yet.
const COPIED: &[&str] = &[
    "__sled__default",
    "meta",
    "orgs",
    "org_clocks",
    "api_keys",
    "api_key_hashes",
    "api_key_used",
    "agents",
    "agent_configs",
    "threads",
    "threads_by_agent",
    "threads_by_user",
    "threads_by_parent",
    "deleted_threads",
    "thread_seqs",
    "turn_seqs",
    "idempotency",
    "messages",
    "context_seqs",
    "context",
    "participants",
    "usage",
    "usage_by_thread",
    "usage_by_agent",
    "tools",
    "tool_names",
    "plans",
    "plans_by_thread",
    "schedules",
    "schedules_due",
    "schedule_outbox",
    "publication_days",
    "publications",
    "publication_slugs",
    "publication_threads",
    "org_settings",
    "skills",
    "skill_names",
    "skill_files",
    "skill_attachments",
    "skill_attached",
    "mcps",
    "mcp_slugs",
    "agent_mcps",
    "oauth_registrations",
    "oauth_tokens",
    "integrations",
    "integration_slugs",
    "agent_integrations",
    "trace_days",
    "memories",
    "memories_by_owner",
    "memory_hashes",
    "memory_counts",
    "memory_forgets",
    "memory_collect_jobs",
    "documents",
    "documents_by_scope",
    "document_hashes",
    "knowledge_file_refs",
    "knowledge_jobs",
    "chunks",
    "knowledge_purges",
    "embedding_configs",
    "chunk_vectors",
    "marketplace_profiles",
    "marketplace_avatars",
    // Derived: each listed profile's catalogue key.
    "marketplace_listed",
    // The search index's log: each node rebuilds its index from the rows.
    "knowledge_changes",
    "projects",
    "project_slugs",
    "project_timeline",
    "project_members",
    "projects_by_user",
    "threads_by_project",
    "project_detaches",
];

/// Why a migration stopped.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// Nothing was copied: the store or the target is not fit (exit 2).
    #[error("{0}")]
    Refused(String),
    /// The copy failed or does not match (exit 1).
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Database(#[from] PgError),
}

impl From<tokio_postgres::Error> for ImportError {
    fn from(error: tokio_postgres::Error) -> Self {
        Self::Database(PgError::from(error))
    }
}

/// The sled trees of kinds PostgreSQL does not keep yet that hold records,
/// with their counts.
pub fn unported(store: &SledStore) -> Result<Vec<(String, usize)>, StoreError> {
    let mut found = Vec::new();
    for name in store.db.tree_names() {
        let name = String::from_utf8_lossy(&name).into_owned();
        if COPIED.contains(&name.as_str()) {
            continue;
        }
        let tree = store.db.open_tree(&name).map_err(crate::store::engine)?;
        if !tree.is_empty() {
            found.push((name, tree.len()));
        }
    }
    Ok(found)
}

/// Copies `from` into `database` (see the module documentation); the
/// manifest both stores agree on.
pub async fn import(
    from: &SledStore,
    database: &Database,
    secrets: &SecretBox,
    replace: bool,
) -> Result<Manifest, ImportError> {
    let unported = unported(from)?;
    if !unported.is_empty() {
        let named: Vec<String> = unported
            .iter()
            .map(|(tree, n)| format!("{tree} ({n})"))
            .collect();
        return Err(ImportError::Refused(format!(
            "the store holds records PostgreSQL does not keep yet: {}; nothing was copied",
            named.join(", ")
        )));
    }
    let unopenable = from.unopenable_secrets()?;
    if !unopenable.is_empty() {
        return Err(ImportError::Refused(format!(
            "sealed values do not open with the store's key ({}); nothing was copied",
            unopenable.join("; ")
        )));
    }
    let mut connection = database.dedicated().await?;
    let client = &mut connection.client;
    client
        .batch_execute("SET statement_timeout = 0; SET idle_in_transaction_session_timeout = 0")
        .await?;
    migrate::locked(client, async |client| {
        migrate::migrate(client, MIGRATIONS).await?;
        prepare_target(client, replace).await
    })
    .await
    .map_err(|e| match e {
        PgError::Refused(why) => ImportError::Refused(why),
        other => ImportError::Database(other),
    })?;
    let copied = copy(from, client).await?;
    let tx = snapshot(client).await?;
    let mut problems = Vec::new();
    let target = manifest::of_postgres(&tx, &mut problems).await?;
    tx.commit().await?;
    let differ = copied.differences(&target);
    if !differ.is_empty() || !problems.is_empty() {
        return Err(StoreError::Codec(format!(
            "the copy does not match the store (kinds: {}; {}); \
             the database stays marked, run again with --replace",
            differ.join(", "),
            problems.join("; ")
        ))
        .into());
    }
    let (key_check, _) = secrets.key_checks();
    let tx = client.transaction().await?;
    for (key, value) in [
        (KEY_CHECK, key_check),
        (MANIFEST, target.lines().join("\n")),
    ] {
        tx.execute(
            "INSERT INTO meta (key, value) VALUES ($1, $2)
             ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()",
            &[&key, &value],
        )
        .await?;
    }
    tx.execute("DELETE FROM meta WHERE key = $1", &[&MIGRATION])
        .await?;
    tx.commit().await?;
    Ok(target)
}

/// The tables a migration fills, emptied by `--replace`.
const FILLED: &[&str] = &[
    "orgs",
    "api_keys",
    "projects",
    "project_members",
    "agents",
    "agent_configs",
    "org_settings",
    "publications",
    "skills",
    "skill_files",
    "skill_attachments",
    "mcp_servers",
    "mcp_attachments",
    "oauth_registrations",
    "oauth_tokens",
    "oauth_flows",
    "integrations",
    "integration_attachments",
    "memories",
    "memory_forgets",
    "documents",
    "chunks",
    "chunk_vectors",
    "embedding_configs",
    "marketplace_profiles",
    "marketplace_avatars",
    "keyed_adoptions",
    "knowledge_purges",
    "blob_refs",
    "blobs",
    "index_changes",
    "tools",
    "cache_versions",
    "threads",
    "messages",
    "context_entries",
    "turns",
    "keyed_sends",
    "keyed_threads",
    "participants",
    "plans",
    "scheduled_tasks",
    "schedule_outbox",
    "usage_records",
    "publication_days",
    "deleted_threads",
    "traces",
    "trace_days",
    "jobs",
    "job_runs",
    "send_limits",
    "org_turn_slots",
    "org_turn_waiters",
];

/// Refuses a target a live node serves, one another migration has marked,
/// or one holding records (the last two unless `replace`, which empties
/// it), then marks it.
async fn prepare_target(client: &mut Client, replace: bool) -> Result<(), PgError> {
    let live: i64 = client
        .query_one("SELECT count(*) FROM nodes WHERE expires_at > now()", &[])
        .await?
        .get(0);
    if live > 0 {
        return Err(PgError::Refused(format!(
            "{live} node(s) are serving this database; stop them before migrating into it"
        )));
    }
    let marked = client
        .query_opt("SELECT value FROM meta WHERE key = $1", &[&MIGRATION])
        .await?
        .is_some_and(|row| row.get::<_, String>(0) == "in_progress");
    if marked && !replace {
        return Err(PgError::Refused(
            "a migration into this database is under way, or one stopped before it \
             finished; pass --replace to start again"
                .into(),
        ));
    }
    let held: Vec<String> = {
        let mut held = Vec::new();
        for table in KINDS.iter().map(|k| k.table) {
            let sql = format!("SELECT EXISTS (SELECT 1 FROM {table})");
            if client.query_one(sql.as_str(), &[]).await?.get::<_, bool>(0) {
                held.push(table.to_owned());
            }
        }
        held
    };
    if !held.is_empty() && !replace {
        return Err(PgError::Refused(format!(
            "the database already holds Confer records ({}); migrate into an empty one, \
             or pass --replace to empty it",
            held.join(", ")
        )));
    }
    let tx = client.transaction().await?;
    if replace {
        tx.batch_execute(&format!("TRUNCATE {}", FILLED.join(", ")))
            .await?;
    }
    // The nodes' search indexes cache the rows replaced: a new feed name
    // has each rebuilt from the copy.
    tx.execute(
        "UPDATE meta SET value = gen_random_uuid()::text, updated_at = now()
         WHERE key = 'index_feed'",
        &[],
    )
    .await?;
    tx.execute(
        "INSERT INTO meta (key, value) VALUES ($1, 'in_progress')
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()",
        &[&MIGRATION],
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Copies every kind in one transaction; the manifest of what was read.
async fn copy(from: &SledStore, client: &mut Client) -> Result<Manifest, ImportError> {
    let source = SledSource { store: from };
    let tx = client.transaction().await?;
    let mut kinds = Vec::new();
    for kind in KINDS {
        let mut lines = Lines::new(kind);
        let types = kind.types();
        let statement = kind.copy_statement();
        let mut rows = source.rows(kind)?.peekable();
        while rows.peek().is_some() {
            let sink = tx.copy_in(statement.as_str()).await?;
            let mut writer = pin!(BinaryCopyInWriter::new(sink, &types));
            let mut bytes = 0;
            while bytes < BATCH_BYTES {
                let Some(row) = rows.next() else { break };
                let row = row?;
                lines.add(&row.line);
                bytes += row.line.len();
                let cells: Vec<&(dyn ToSql + Sync)> = row
                    .cells
                    .iter()
                    .map(|c| &**c as &(dyn ToSql + Sync))
                    .collect();
                writer.as_mut().write(&cells).await?;
            }
            writer.finish().await?;
        }
        kinds.push(lines.finish());
    }
    jobs_of::purge_deleted_threads(&tx).await?;
    jobs_of::queue_collections(from, &tx).await?;
    jobs_of::queue_ingestion(from, &tx).await?;
    tx.commit().await?;
    Ok(Manifest { kinds })
}
