//! Newest-first listings over the time-ordered indexes (`keys::timeline`).

use chrono::{DateTime, Utc};
use confer_actors::StoreError;
use sled::Tree;

use super::{SledStore, engine, keys};

/// One page of a newest-first listing.
#[derive(Debug)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// The `created_at` of the last item when more items follow.
    pub next_cursor: Option<DateTime<Utc>>,
}

impl SledStore {
    /// A reverse scan of a timeline index from `before`, loading each entry
    /// with `load` (which may skip it) until `limit` items are found; one more
    /// match is looked for to know whether a next page exists.
    pub(crate) fn timeline_page<T>(
        &self,
        index: &Tree,
        prefix: &[u8],
        before: Option<DateTime<Utc>>,
        limit: usize,
        mut load: impl FnMut(&[u8], &[u8]) -> Result<Option<T>, StoreError>,
        created_at: impl Fn(&T) -> DateTime<Utc>,
    ) -> Result<Page<T>, StoreError> {
        let end = keys::timeline_end(prefix, before.map(keys::micros));
        let mut items = Vec::with_capacity(limit.min(128));
        let mut more = false;
        for entry in index.range(prefix.to_vec()..end).rev() {
            let (key, value) = entry.map_err(engine)?;
            if let Some(item) = load(&key, &value)? {
                if items.len() == limit {
                    more = true;
                    break;
                }
                items.push(item);
            }
        }
        let next_cursor = if more {
            items.last().map(&created_at)
        } else {
            None
        };
        Ok(Page { items, next_cursor })
    }
}
