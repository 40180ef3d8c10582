//! The manifest lines of the kinds that have no body of their own: built
//! from their columns on PostgreSQL and from their sled entries the same
//! way, so that both stores digest the same text.

use crate::store::threads::DeletedThread;

/// What a kind's manifest line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line {
    /// The record's body (`v`, `body`).
    Body,
    /// A deleted thread's marker, built from its columns.
    DeletedThread,
    /// A publication's tokens of one day, built from its columns.
    PublicationDay,
    /// A keyed thread creation, built from its columns.
    KeyedThread,
    /// An analytics day aggregate: its key and its encoded sums.
    TraceDay,
    /// A skill's file, built from its columns.
    SkillFile,
    /// A knowledge purge marker, built from its columns.
    KnowledgePurge,
    /// A stored file's reference count, built from its columns.
    BlobRef,
    /// A part of a stored file: its length and SHA-256.
    BlobPart,
    /// A chunk's vector, built from its columns.
    ChunkVector,
    /// A marketplace avatar: its length and SHA-256.
    Avatar,
    /// A keyed marketplace `use`, built from its columns.
    KeyedAdoption,
}

/// The manifest line of a publication's day (the same on both stores).
pub fn publication_day_line(publication: uuid::Uuid, day: i32, tokens: i64) -> Vec<u8> {
    serde_json::json!({"publication_id": publication, "day": day, "tokens": tokens})
        .to_string()
        .into_bytes()
}

/// The manifest line of a deleted thread's marker.
pub fn deleted_thread_line(thread: uuid::Uuid, marker: &DeletedThread) -> Vec<u8> {
    serde_json::json!({
        "thread_id": thread,
        "org_id": marker.org_id,
        "agent_id": marker.agent_id,
        "created_at": marker.created_at,
        "deleted_at": marker.deleted_at,
    })
    .to_string()
    .into_bytes()
}

/// The manifest line of a keyed thread creation.
pub fn keyed_thread_line(
    org: uuid::Uuid,
    key_hash: &[u8],
    request: &str,
    thread: uuid::Uuid,
    created_at: chrono::DateTime<chrono::Utc>,
) -> Vec<u8> {
    serde_json::json!({
        "org_id": org,
        "key_hash": hex::encode(key_hash),
        "request": request,
        "thread_id": thread,
        "created_at": created_at,
    })
    .to_string()
    .into_bytes()
}

/// The manifest line of an analytics day aggregate (its key and its
/// encoded sums, as sled keeps them).
pub fn trace_day_line(key: &[u8], body: &[u8]) -> Vec<u8> {
    serde_json::json!({"key": hex::encode(key), "body": hex::encode(body)})
        .to_string()
        .into_bytes()
}

/// The manifest line of a skill's file: its bytes by their SHA-256 (a
/// file may be large; its digest tells a copy apart as well).
pub fn skill_file_line(skill: uuid::Uuid, path: &str, bytes: &[u8]) -> Vec<u8> {
    use sha2::Digest;
    serde_json::json!({
        "skill_id": skill,
        "path": path,
        "bytes": bytes.len(),
        "sha256": hex::encode(sha2::Sha256::digest(bytes)),
    })
    .to_string()
    .into_bytes()
}

/// The manifest line of a knowledge purge marker (`generation` -1: the
/// whole document).
pub fn knowledge_purge_line(
    doc: uuid::Uuid,
    generation: i64,
    org: uuid::Uuid,
    sha256: Option<&str>,
) -> Vec<u8> {
    serde_json::json!({"doc_id": doc, "generation": generation, "org_id": org, "sha256": sha256})
        .to_string()
        .into_bytes()
}

/// The manifest line of a stored file's reference count.
pub fn blob_ref_line(org: uuid::Uuid, name: &str, size: i64, refs: i64) -> Vec<u8> {
    serde_json::json!({"org_id": org, "name": name, "size": size, "refs": refs})
        .to_string()
        .into_bytes()
}

/// The manifest line of a part of a stored file: its bytes by their
/// SHA-256.
pub fn blob_part_line(org: uuid::Uuid, name: &str, n: i32, data: &[u8]) -> Vec<u8> {
    use sha2::Digest;
    serde_json::json!({
        "org_id": org,
        "name": name,
        "n": n,
        "bytes": data.len(),
        "sha256": hex::encode(sha2::Sha256::digest(data)),
    })
    .to_string()
    .into_bytes()
}

/// The manifest line of a chunk's vector (its components in hex).
pub fn chunk_vector_line(
    doc: uuid::Uuid,
    generation: i64,
    n: i32,
    model: &str,
    components: &[u8],
) -> Vec<u8> {
    serde_json::json!({
        "doc_id": doc,
        "generation": generation,
        "n": n,
        "model": model,
        "components": hex::encode(components),
    })
    .to_string()
    .into_bytes()
}

/// The manifest line of a marketplace avatar: its bytes by their SHA-256.
pub fn avatar_line(agent: uuid::Uuid, png: &[u8]) -> Vec<u8> {
    use sha2::Digest;
    serde_json::json!({
        "agent_id": agent,
        "bytes": png.len(),
        "sha256": hex::encode(sha2::Sha256::digest(png)),
    })
    .to_string()
    .into_bytes()
}

/// The manifest line of a keyed marketplace `use`.
pub fn keyed_adoption_line(
    org: uuid::Uuid,
    key_hash: &[u8],
    request: &str,
    answer: &str,
    created_at: chrono::DateTime<chrono::Utc>,
) -> Vec<u8> {
    serde_json::json!({
        "org_id": org,
        "key_hash": hex::encode(key_hash),
        "request": request,
        "answer": answer,
        "created_at": created_at,
    })
    .to_string()
    .into_bytes()
}
