//! A runner's runs in the store: creation under the backlog cap, reads,
//! pages, changes with their indexes (see the parent's layout).

use chrono::{DateTime, Utc};
use confer_actors::{OrgId, RunId, RunnerId, StoreError};
use sled::Transactional;

use super::deliveries::EventTx;
use super::{NewRunTx, RunCreated, RunTx, run_key};
use crate::runners::{Run, RunRecord, RunStatus};
use crate::store::keys;
use crate::store::update::Updated;
use crate::store::{Page, SledStore, engine, tx_error};

impl SledStore {
    /// Stores a new queued run unless its runner's backlog is full (or the
    /// runner went); `created_at` is made unique within the org.
    pub fn create_run(&self, run: &RunRecord, max_queued: u32) -> Result<RunCreated, StoreError> {
        let _writing = self.gate.writing();
        let t = &self.runners;
        (
            &t.runners,
            &t.runs,
            &t.by_runner,
            &t.queue,
            &t.open,
            &t.backlog,
            &self.org_clocks,
        )
            .transaction(|(runners, runs, by_runner, queue, open, backlog, clocks)| {
                NewRunTx {
                    runners,
                    runs,
                    by_runner,
                    queue,
                    open,
                    backlog,
                    clocks,
                }
                .create(run, max_queued)
            })
            .map_err(tx_error)
    }

    /// The run.
    pub fn run(&self, org: OrgId, id: RunId) -> Result<Option<RunRecord>, StoreError> {
        Self::get(&self.runners.runs, &run_key(org, id))
    }

    /// A runner's runs, newest first, strictly older than `before`,
    /// keeping those `keep` accepts.
    pub fn list_runs(
        &self,
        org: OrgId,
        runner: RunnerId,
        before: Option<DateTime<Utc>>,
        limit: usize,
        keep: impl Fn(&Run) -> bool,
    ) -> Result<Page<Run>, StoreError> {
        let prefix = keys::pair(org.as_bytes(), runner.as_bytes());
        self.timeline_page(
            &self.runners.by_runner,
            &prefix,
            before,
            limit,
            |key, _| {
                let Some(id) = keys::timeline_id(key) else {
                    return Ok(None);
                };
                Ok(self
                    .run(org, RunId::from_bytes(id))?
                    .map(|record| record.run)
                    .filter(|run| keep(run)))
            },
            |run| run.created_at,
        )
    }

    /// Changes a run in one transaction with its indexes; `change` may
    /// refuse (nothing is written). A run going back to `queued` joins
    /// the end of the queue.
    pub fn change_run<E>(
        &self,
        org: OrgId,
        id: RunId,
        change: impl Fn(&mut RunRecord) -> Result<(), E>,
    ) -> Result<Updated<RunRecord, E>, StoreError> {
        let _writing = self.gate.writing();
        let t = &self.runners;
        let d = &t.deliveries;
        (
            &t.runs,
            &t.queue,
            &t.open,
            &t.backlog,
            &t.runners,
            &d.deliveries,
            &d.queue,
            &d.pending,
        )
            .transaction(
                |(runs, queue, open, backlog, runners, deliveries, dq, pending)| {
                    let tx = RunTx {
                        runs,
                        queue,
                        open,
                        backlog,
                        events: Some(EventTx {
                            runners,
                            deliveries,
                            queue: dq,
                            pending,
                        }),
                    };
                    let Some(old) = tx.read(org, id)? else {
                        return Ok(Updated::Gone);
                    };
                    let mut new = old.clone();
                    if let Err(refusal) = change(&mut new) {
                        return Ok(Updated::Refused(refusal));
                    }
                    if new.status == RunStatus::Queued && old.status != RunStatus::Queued {
                        new.progress.queued_us =
                            keys::micros(Utc::now()).max(old.progress.queued_us + 1);
                    }
                    tx.save(Some(&old), &new)?;
                    Ok(Updated::Stored(new))
                },
            )
            .map_err(tx_error)
    }

    /// Queued runs, oldest queued first: `(org, run)`.
    pub fn queued_runs(&self, limit: usize) -> Result<Vec<(OrgId, RunId)>, StoreError> {
        Ok(self
            .queue_entries(limit)?
            .into_iter()
            .map(|(org, id, _)| (org, id))
            .collect())
    }

    /// Queued runs, oldest queued first, with their runner when the
    /// entry names it (entries written before it did do not), so that a
    /// dispatcher skips a full runner's runs without reading them.
    pub fn queue_entries(
        &self,
        limit: usize,
    ) -> Result<Vec<(OrgId, RunId, Option<RunnerId>)>, StoreError> {
        let mut out = Vec::new();
        for entry in self.runners.queue.iter() {
            let (key, value) = entry.map_err(engine)?;
            let org = value.get(..16).and_then(|b| <[u8; 16]>::try_from(b).ok());
            let (Some(id), Some(org)) = (keys::timeline_id(&key), org) else {
                continue;
            };
            let runner = value
                .get(16..32)
                .and_then(|b| <[u8; 16]>::try_from(b).ok())
                .map(RunnerId::from_bytes);
            out.push((OrgId::from_bytes(org), RunId::from_bytes(id), runner));
            if out.len() == limit {
                break;
            }
        }
        Ok(out)
    }

    /// Runs running or waiting: `(org, run)` (the restart and expiry
    /// scans).
    pub fn open_runs(&self) -> Result<Vec<(OrgId, RunId)>, StoreError> {
        let mut out = Vec::new();
        for entry in self.runners.open.iter() {
            let (key, org) = entry.map_err(engine)?;
            let (Ok(id), Ok(org)) = (
                <[u8; 16]>::try_from(&key[..]),
                <[u8; 16]>::try_from(&org[..]),
            ) else {
                continue;
            };
            out.push((OrgId::from_bytes(org), RunId::from_bytes(id)));
        }
        Ok(out)
    }
}
