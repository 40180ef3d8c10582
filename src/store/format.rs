//! The store's format version (`operations.md` "upgrade"): written when a
//! store is first opened and checked at every open, so that an older binary
//! refuses a store a newer one has changed instead of misreading it. Raise
//! [`STORE_FORMAT`] when a change of layout or record shape is one an older
//! binary cannot read; additive changes that old readers skip keep it.

use confer_actors::StoreError;

use super::{SledStore, engine};

/// The format this binary writes and the newest it reads.
pub const STORE_FORMAT: u64 = 1;

/// The `meta` key of the format version (u64 BE).
const FORMAT_KEY: &[u8] = b"store_format";

impl SledStore {
    /// The store's format version; a store from before versions is 1.
    pub fn format(&self) -> Result<u64, StoreError> {
        Ok(self
            .meta
            .get(FORMAT_KEY)
            .map_err(engine)?
            .map_or(1, |v| super::keys::read_u64(&v)))
    }

    /// Refuses a store of a newer format; records this binary's format on
    /// an older or new one (after its migrations ran).
    pub(super) fn check_format(&self) -> Result<(), StoreError> {
        let found = self.format()?;
        if found > STORE_FORMAT {
            return Err(StoreError::Engine(format!(
                "this store was written by a newer Confer (store format {found}; this binary \
                 reads up to {STORE_FORMAT}): run the newer binary, or restore a backup made \
                 by this version"
            )));
        }
        Ok(())
    }

    /// Records [`STORE_FORMAT`] (once the migrations to it have run).
    pub(super) fn mark_format(&self) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        if self.meta.get(FORMAT_KEY).map_err(engine)?.is_none() || self.format()? < STORE_FORMAT {
            self.meta
                .insert(FORMAT_KEY, &STORE_FORMAT.to_be_bytes())
                .map_err(engine)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::store::{Store, test_secrets};

    #[test]
    fn a_newer_store_is_refused_with_a_clear_message() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_with(dir.path(), test_secrets(dir.path())).unwrap();
        assert_eq!(store.with_inner(|s| s.format()).unwrap(), STORE_FORMAT);
        store
            .with_inner(|s| {
                s.meta
                    .insert(FORMAT_KEY, &(STORE_FORMAT + 1).to_be_bytes())
                    .unwrap();
                Ok::<_, confer_actors::StoreError>(())
            })
            .unwrap();
        store.flush_now().unwrap();
        drop(store);
        let error = Store::open_with(dir.path(), test_secrets(dir.path()))
            .err()
            .unwrap()
            .to_string();
        assert!(error.contains("newer Confer"), "{error}");
        assert!(
            error.contains(&format!("store format {}", STORE_FORMAT + 1)),
            "{error}"
        );
    }
}
