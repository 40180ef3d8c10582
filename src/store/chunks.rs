//! Large values in chunks below sled's blob threshold.
//!
//! sled 0.34 writes a value over about 128 KiB to a file of its own under
//! `blobs/`, which it never fsyncs, and keeps every such value in memory
//! whatever its cache capacity (measured: 150 turns of 1.25 MiB kept 200 MiB
//! resident with a 64 MiB cache; values of 100 KiB kept 30 MiB). Messages
//! and context entries (a long user message, a long answer) are therefore
//! stored in chunks of [`CHUNK_BYTES`] in the `chunks` tree, written in the
//! same transaction as the record, which keeps only a stub:
//! `[CHUNKED, count u32 BE, length u64 BE]`. Chunk keys are
//! `kind ++ record key ++ index u32 BE`, so a thread's chunks are one prefix.

use confer_actors::{StoreError, ThreadId};
use sled::Tree;
use sled::transaction::{ConflictableTransactionError, TransactionalTree};

use super::engine;

/// Largest piece stored in one sled value.
pub const CHUNK_BYTES: usize = 32 * 1024;
/// First byte of a stub (record encodings start with a small version number).
const CHUNKED: u8 = 0xC1;
const STUB_LEN: usize = 1 + 4 + 8;

/// Which tree a chunked value belongs to.
#[derive(Clone, Copy, Debug)]
#[repr(u8)]
pub enum ChunkedTree {
    Messages = 1,
    Context = 2,
}

fn chunk_key(tree: ChunkedTree, key: &[u8], index: u32) -> Vec<u8> {
    let mut chunk = Vec::with_capacity(1 + key.len() + 4);
    chunk.push(tree as u8);
    chunk.extend_from_slice(key);
    chunk.extend_from_slice(&index.to_be_bytes());
    chunk
}

/// The prefix of every chunk of `thread` in `tree`.
pub fn thread_prefix(tree: ChunkedTree, thread: ThreadId) -> Vec<u8> {
    let mut prefix = vec![tree as u8];
    prefix.extend_from_slice(thread.as_bytes());
    prefix
}

/// Inserts `value` at `key` of `records`, chunked into `chunks` when large,
/// inside a transaction.
pub fn insert(
    records: &TransactionalTree,
    chunks: &TransactionalTree,
    tree: ChunkedTree,
    key: &[u8],
    value: &[u8],
) -> Result<(), ConflictableTransactionError<StoreError>> {
    if value.len() <= CHUNK_BYTES {
        records.insert(key, value)?;
        return Ok(());
    }
    let pieces = value.chunks(CHUNK_BYTES);
    let count = u32::try_from(pieces.len()).map_err(|_| {
        ConflictableTransactionError::Abort(StoreError::Codec("value too large".into()))
    })?;
    for (index, piece) in (0u32..).zip(pieces) {
        chunks.insert(chunk_key(tree, key, index), piece)?;
    }
    let mut stub = Vec::with_capacity(STUB_LEN);
    stub.push(CHUNKED);
    stub.extend_from_slice(&count.to_be_bytes());
    stub.extend_from_slice(&(value.len() as u64).to_be_bytes());
    records.insert(key, stub)?;
    Ok(())
}

/// The whole value of a record read from `tree` at `key`.
pub fn join(
    chunks: &Tree,
    tree: ChunkedTree,
    key: &[u8],
    stored: &[u8],
) -> Result<Vec<u8>, StoreError> {
    if stored.len() != STUB_LEN || stored[0] != CHUNKED {
        return Ok(stored.to_vec());
    }
    let count = u32::from_be_bytes([stored[1], stored[2], stored[3], stored[4]]);
    let mut length = [0u8; 8];
    length.copy_from_slice(&stored[5..13]);
    let length = usize::try_from(u64::from_be_bytes(length))
        .map_err(|_| StoreError::Codec("chunked value length".into()))?;
    let mut value = Vec::with_capacity(length);
    for index in 0..count {
        let piece = chunks
            .get(chunk_key(tree, key, index))
            .map_err(engine)?
            .ok_or_else(|| StoreError::Codec("a chunk of a stored value is missing".into()))?;
        value.extend_from_slice(&piece);
    }
    if value.len() != length {
        return Err(StoreError::Codec(
            "a chunked value has the wrong length".into(),
        ));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sled::Transactional;

    #[test]
    fn large_values_round_trip_in_chunks_and_small_ones_stay_whole() {
        let dir = tempfile::tempdir().unwrap();
        let db = sled::open(dir.path()).unwrap();
        let records = db.open_tree("records").unwrap();
        let chunks = db.open_tree("chunks").unwrap();
        let large: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        (&records, &chunks)
            .transaction(|(r, c)| {
                insert(r, c, ChunkedTree::Context, b"big", &large)?;
                insert(r, c, ChunkedTree::Context, b"small", b"\x01{}")?;
                Ok::<_, ConflictableTransactionError<StoreError>>(())
            })
            .unwrap();
        assert_eq!(chunks.len(), 300_000usize.div_ceil(CHUNK_BYTES));
        assert!(
            chunks
                .iter()
                .values()
                .all(|v| v.unwrap().len() <= CHUNK_BYTES)
        );
        let stub = records.get(b"big").unwrap().unwrap();
        assert_eq!(stub.len(), STUB_LEN);
        assert_eq!(
            join(&chunks, ChunkedTree::Context, b"big", &stub).unwrap(),
            large
        );
        let small = records.get(b"small").unwrap().unwrap();
        assert_eq!(
            join(&chunks, ChunkedTree::Context, b"small", &small).unwrap(),
            b"\x01{}"
        );
    }
}
