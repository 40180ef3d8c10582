//! The manifest lines of the kinds that have no body of their own: built
//! from their columns on PostgreSQL and from their sled entries the same
//! way, so that both stores digest the same text.

use crate::store::threads::DeletedThread;

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
