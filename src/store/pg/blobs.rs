//! Stored files on PostgreSQL (`scale.md` §5): what sled's nodes keep
//! under the data directory lives in `blobs`, in parts of at most 1 MiB,
//! since a job may run on any node. `blob_refs` counts the records using
//! a file; the first keeps its parts, the last release removes them.

use std::path::Path;

use confer_actors::{OrgId, StoreError};
use tokio::io::AsyncReadExt;
use tokio_postgres::GenericClient;

use super::records::db;

/// The largest part of a stored file.
pub const PART_BYTES: usize = 1 << 20;

/// The blob name of a knowledge file.
pub fn knowledge_file(sha256: &str) -> String {
    format!("knowledge/{sha256}")
}

/// Takes a reference on `org`'s blob `name`, keeping the bytes of `path`
/// as its parts when no record used it yet (in `tx`: gone with it).
pub(super) async fn keep(
    tx: &impl GenericClient,
    org: OrgId,
    name: &str,
    path: &Path,
) -> Result<(), StoreError> {
    let mut file = tokio::fs::File::open(path)
        .await
        .map_err(|e| StoreError::Engine(format!("reading a file to keep: {}", e.kind())))?;
    let size = i64::try_from(file.metadata().await.map_or(0, |m| m.len())).unwrap_or(i64::MAX);
    let refs: i64 = tx
        .query_one(
            "INSERT INTO blob_refs (org_id, name, size, refs) VALUES ($1, $2, $3, 1)
             ON CONFLICT (org_id, name) DO UPDATE SET refs = blob_refs.refs + 1
             RETURNING refs",
            &[&org.0, &name, &size],
        )
        .await
        .map_err(db)?
        .get(0);
    if refs > 1 {
        return Ok(());
    }
    let mut part = Vec::with_capacity(PART_BYTES);
    let mut n = 0i32;
    loop {
        part.clear();
        // To the part's end or the file's.
        (&mut file)
            .take(PART_BYTES as u64)
            .read_to_end(&mut part)
            .await
            .map_err(|e| StoreError::Engine(format!("reading a file to keep: {}", e.kind())))?;
        if part.is_empty() && n > 0 {
            return Ok(());
        }
        tx.execute(
            "INSERT INTO blobs (org_id, name, n, data) VALUES ($1, $2, $3, $4)",
            &[&org.0, &name, &n, &part],
        )
        .await
        .map_err(db)?;
        if part.len() < PART_BYTES {
            return Ok(());
        }
        n += 1;
    }
}

/// Drops a reference on `org`'s blob `name`; the last removes its parts.
pub(super) async fn release(
    tx: &impl GenericClient,
    org: OrgId,
    name: &str,
) -> Result<(), StoreError> {
    let last = tx
        .execute(
            "DELETE FROM blob_refs WHERE org_id = $1 AND name = $2 AND refs <= 1",
            &[&org.0, &name],
        )
        .await
        .map_err(db)?;
    if last == 0 {
        tx.execute(
            "UPDATE blob_refs SET refs = refs - 1 WHERE org_id = $1 AND name = $2",
            &[&org.0, &name],
        )
        .await
        .map_err(db)?;
        return Ok(());
    }
    tx.execute(
        "DELETE FROM blobs WHERE org_id = $1 AND name = $2",
        &[&org.0, &name],
    )
    .await
    .map_err(db)?;
    Ok(())
}

/// The bytes of `org`'s blob `name` (`None`: no such blob).
pub(super) async fn read(
    client: &impl GenericClient,
    org: OrgId,
    name: &str,
) -> Result<Option<Vec<u8>>, StoreError> {
    let rows = client
        .query(
            "SELECT data FROM blobs WHERE org_id = $1 AND name = $2 ORDER BY n",
            &[&org.0, &name],
        )
        .await
        .map_err(db)?;
    if rows.is_empty() {
        return Ok(None);
    }
    let mut bytes = Vec::new();
    for row in rows {
        bytes.extend_from_slice(row.get::<_, &[u8]>(0));
    }
    Ok(Some(bytes))
}
