//! Whole-org scans for `confer export`: each visits records one at a time,
//! in key order, so an export holds one record in memory, never a listing.

use chrono::{DateTime, Utc};
use confer_actors::{Agent, Message, OrgId, StoreError, Thread, ThreadId, UsageRecord};

use super::codec::decode;
use super::{SledStore, engine, keys};

impl SledStore {
    /// Every agent of `org`, deleted ones included.
    pub fn each_agent(
        &self,
        org: OrgId,
        mut visit: impl FnMut(Agent) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        for value in self.agents.scan_prefix(org.as_bytes()).values() {
            visit(decode(&value.map_err(engine)?)?)?;
        }
        Ok(())
    }

    /// Every thread of `org` (not deleted ones).
    pub fn each_thread(
        &self,
        org: OrgId,
        mut visit: impl FnMut(Thread) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        for value in self.threads.scan_prefix(org.as_bytes()).values() {
            visit(decode(&value.map_err(engine)?)?)?;
        }
        Ok(())
    }

    /// Every listed message of `thread`, oldest first.
    pub fn each_message(
        &self,
        thread: ThreadId,
        mut visit: impl FnMut(Message) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        for entry in self.messages.scan_prefix(thread.as_bytes()) {
            visit(self.filed_record(thread, entry)?)?;
        }
        Ok(())
    }

    /// Every usage record of `org` made at or after `since`, oldest first.
    pub fn each_usage(
        &self,
        org: OrgId,
        since: Option<DateTime<Utc>>,
        mut visit: impl FnMut(UsageRecord) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut start = org.as_bytes().to_vec();
        start.extend_from_slice(&since.map_or(0, keys::micros).to_be_bytes());
        let end = keys::timeline_end(org.as_bytes(), None);
        for value in self.usage.range(start..end).values() {
            visit(decode(&value.map_err(engine)?)?)?;
        }
        Ok(())
    }
}
