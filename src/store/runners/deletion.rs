//! Deleting a runner (`runners.md` Acceptance 8: its tokens 404 at once,
//! its waiting runs cancelled). The deletion touches many records (the
//! runner, its triggers, the tasks that start it, each waiting run), more
//! than one transaction holds, so it is made resumable instead: a marker
//! in `runner_deletions` is written first and removed last, and every
//! step after the runner's own mark is idempotent. At start, before any
//! run is dispatched, [`SledStore::finish_runner_deletions`] completes the
//! deletions a crash interrupted; a marker whose runner is not marked
//! deleted is a DELETE that never answered, and is dropped.

use chrono::Utc;
use confer_actors::{OrgId, RunId, RunnerId, StoreError};

use crate::runners::{RunRecord, RunStatus};
use crate::store::update::Updated;
use crate::store::{SledStore, engine, keys};

impl SledStore {
    /// Soft-deletes a runner and cancels its queued and waiting runs
    /// (`runner_deleted`); returns the runs still running (the caller
    /// stops them), or `None` when the runner was already gone.
    pub fn delete_runner(
        &self,
        org: OrgId,
        id: RunnerId,
    ) -> Result<Option<Vec<RunRecord>>, StoreError> {
        let _writing = self.gate.writing();
        let marker = keys::pair(org.as_bytes(), id.as_bytes());
        self.runners.deletions.insert(marker, &[]).map_err(engine)?;
        let deleted = self.update_runner(org, id, |mut r| {
            r.deleted_at = Some(Utc::now());
            Ok::<_, ()>(r)
        })?;
        if !matches!(deleted, Updated::Stored(_)) {
            self.runners.deletions.remove(marker).map_err(engine)?;
            return Ok(None);
        }
        let running = self.clear_deleted_runner(org, id, false)?;
        self.runners.deletions.remove(marker).map_err(engine)?;
        Ok(Some(running))
    }

    /// Completes the deletions a crash interrupted; returns how many. Run
    /// at start, when no run is running: those found running are
    /// cancelled too.
    pub fn finish_runner_deletions(&self) -> Result<usize, StoreError> {
        let _writing = self.gate.writing();
        let markers: Vec<sled::IVec> = self
            .runners
            .deletions
            .iter()
            .keys()
            .collect::<Result<_, _>>()
            .map_err(engine)?;
        let mut finished = 0;
        for marker in markers {
            let ids = (marker.get(..16), marker.get(16..32));
            if let (Some(org), Some(runner)) = ids
                && let (Ok(org), Ok(runner)) =
                    (<[u8; 16]>::try_from(org), <[u8; 16]>::try_from(runner))
            {
                let (org, runner) = (OrgId::from_bytes(org), RunnerId::from_bytes(runner));
                let marked = self
                    .runner(org, runner)?
                    .is_some_and(|r| r.deleted_at.is_some());
                if marked {
                    self.clear_deleted_runner(org, runner, true)?;
                    finished += 1;
                }
            }
            self.runners.deletions.remove(marker).map_err(engine)?;
        }
        Ok(finished)
    }

    /// What a deleted runner leaves: its triggers dropped (its tokens are
    /// 404 from here on; the webhook route also checks the runner), the
    /// tasks that start it stopped, and its queued and waiting runs (and,
    /// at start, its running ones) cancelled. Idempotent. Returns the runs
    /// still running.
    fn clear_deleted_runner(
        &self,
        org: OrgId,
        id: RunnerId,
        at_start: bool,
    ) -> Result<Vec<RunRecord>, StoreError> {
        self.drop_triggers(org, id)?;
        self.delete_button(org, id, None)?;
        self.stop_tasks_of_runner(org, id)?;
        let mut running = Vec::new();
        let prefix = keys::pair(org.as_bytes(), id.as_bytes());
        for entry in self.runners.by_runner.scan_prefix(prefix).keys() {
            let key = entry.map_err(engine)?;
            let Some(run_id) = keys::timeline_id(&key) else {
                continue;
            };
            let run_id = RunId::from_bytes(run_id);
            let cancelled = self.change_run(org, run_id, |run| {
                let stoppable = run.status == RunStatus::Queued
                    || run.status.is_waiting()
                    || (at_start && run.status == RunStatus::Running);
                if !stoppable {
                    return Err(());
                }
                run.status = RunStatus::Cancelled;
                run.status_reason = Some("runner_deleted".into());
                run.ended_at = Some(Utc::now());
                run.expires_at = None;
                Ok(())
            })?;
            if let Updated::Refused(()) = cancelled
                && let Some(run) = self.run(org, run_id)?
                && run.status == RunStatus::Running
            {
                running.push(run);
            }
        }
        Ok(running)
    }
}
