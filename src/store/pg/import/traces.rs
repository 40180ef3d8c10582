//! The traces of a sled store as rows: its day files, each day's entries
//! in `(started_at, id)` order.

use confer_actors::StoreError;

use super::source::{Rows, SledSource, cell, codec, with_body};
use crate::store::pg::records::micro;

impl<'a> SledSource<'a> {
    /// Traces, day by day, each day's in `(started_at, id)` order (a day's
    /// index entries are sorted in memory; their records are read one at
    /// a time).
    pub(super) fn trace_rows(&self) -> Result<Rows<'a>, StoreError> {
        let files = &*self.store.trace_files;
        let days = files.days()?;
        Ok(Box::new(
            days.into_iter()
                .map(move |day| {
                    let mut entries = Vec::new();
                    files.scan(day, |entry| {
                        entries.push(*entry);
                        true
                    })?;
                    entries.sort_by_key(|e| e.order());
                    Ok(entries)
                })
                .flat_map(|entries: Result<Vec<_>, StoreError>| match entries {
                    Ok(entries) => either(entries.into_iter().map(Ok)),
                    Err(e) => either(std::iter::once(Err(e))),
                })
                .filter_map(move |entry| {
                    let entry = match entry {
                        Ok(entry) => entry,
                        Err(e) => return Some(Err(e)),
                    };
                    // Erased meanwhile: not a trace any more.
                    let record = files.record(&entry).transpose()?;
                    Some(record.and_then(|record| {
                        let trace = &record.trace;
                        let cells = vec![
                            cell(trace.id.0),
                            cell(micro(trace.started_at)),
                            cell(trace.org_id.0),
                            cell(trace.agent_id.0),
                            cell(trace.thread_id.0),
                            // sled's day aggregates, copied too, count it.
                            cell(true),
                        ];
                        let body =
                            serde_json::to_value(&record).map_err(|e| codec("a trace", e))?;
                        with_body(cells, body)
                    }))
                }),
        ))
    }
}

/// One day's entries, or the error of reading them, as one iterator type.
fn either<T>(items: impl Iterator<Item = T> + 'static) -> Box<dyn Iterator<Item = T>> {
    Box::new(items)
}
