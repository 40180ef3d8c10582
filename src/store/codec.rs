//! Versioned record encoding: one version byte, then the record as JSON.
//!
//! JSON keeps records readable with any sled tool and tolerant of added
//! optional fields; the version byte lets a later layout migrate old records
//! instead of misreading them.

use confer_actors::StoreError;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The version written by this build.
pub const RECORD_VERSION: u8 = 1;

/// Encodes a record with the current version byte.
pub fn encode<T: Serialize>(record: &T) -> Result<Vec<u8>, StoreError> {
    let mut bytes = vec![RECORD_VERSION];
    serde_json::to_writer(&mut bytes, record).map_err(|e| StoreError::Codec(e.to_string()))?;
    Ok(bytes)
}

/// Decodes a record written by any known version.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, StoreError> {
    match bytes.split_first() {
        Some((&RECORD_VERSION, body)) => {
            serde_json::from_slice(body).map_err(|e| StoreError::Codec(e.to_string()))
        }
        Some((version, _)) => Err(StoreError::Codec(format!(
            "unknown record version {version}"
        ))),
        None => Err(StoreError::Codec("empty record".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_unknown_versions() {
        let bytes = encode(&vec!["a", "b"]).unwrap();
        assert_eq!(bytes[0], RECORD_VERSION);
        let back: Vec<String> = decode(&bytes).unwrap();
        assert_eq!(back, ["a", "b"]);
        let mut future = bytes.clone();
        future[0] = 99;
        assert!(decode::<Vec<String>>(&future).is_err());
        assert!(decode::<Vec<String>>(&[]).is_err());
    }
}
