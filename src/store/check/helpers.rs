//! The checks every tree shares: an index against its records, and
//! records that must decode.

use confer_actors::StoreError;
use sled::Tree;

use super::CheckReport;
use crate::store::codec::decode;
use crate::store::engine;

/// Checks an index with one entry per record of `records`: every entry
/// names a record (its key from `record_key(entry key, entry value)`), and
/// there are as many entries as the `count` records.
pub(super) fn check_index(
    index: &Tree,
    records: &Tree,
    count: u64,
    record_key: impl Fn(&[u8], &[u8]) -> Vec<u8>,
    what: &str,
    report: &mut CheckReport,
) -> Result<(), StoreError> {
    for entry in index.iter() {
        let (key, value) = entry.map_err(engine)?;
        if !records
            .contains_key(record_key(&key, &value))
            .map_err(engine)?
        {
            report.problem(format!("a {what} names a record that does not exist"));
        }
    }
    if index.len() as u64 != count {
        report.problem(format!(
            "{count} records but {} {what} entries",
            index.len()
        ));
    }
    Ok(())
}

/// Counts a tree's records, noting each that does not decode.
pub(super) fn count_decoded<T: serde::de::DeserializeOwned>(
    tree: &Tree,
    what: &str,
    report: &mut CheckReport,
) -> Result<u64, StoreError> {
    let mut count = 0;
    for entry in tree.iter() {
        let (key, value) = entry.map_err(engine)?;
        count += 1;
        if let Err(e) = decode::<T>(&value) {
            report.problem(format!("{what} key {}: {e}", hex::encode(&key)));
        }
    }
    Ok(count)
}
