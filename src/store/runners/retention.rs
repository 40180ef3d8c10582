//! Run retention (`runners.md` Runs rule 10): terminal runs, with their
//! hidden threads, and settled deliveries older than
//! `CONFER_RUN_RETENTION_DAYS` go, and the runners' day totals of those
//! days; webhook nonces past their ten minutes and idempotency keys past
//! their 24 hours too.
//!
//! No index of its own: a run ends after it is made, so only runs made
//! before the cutoff can have ended before it, and each runner's
//! `runs_by_runner` entries are in creation order. The sweep reads each
//! runner's entries up to the cutoff and stops there; a restart simply
//! sweeps again.

use chrono::{DateTime, Duration, Utc};
use confer_actors::{OrgId, RunId, RunnerId, StoreError};
use sled::Transactional;

use super::keyed::WebhookKey;
use super::{run_key, timeline_key};
use crate::runners::{RunRecord, Runner};
use crate::store::codec::decode;
use crate::store::keys;
use crate::store::{SledStore, engine, tx_error};
use crate::webhooks::{DeliveryRecord, DeliveryStatus};

/// What one sweep removed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct RunSweep {
    pub runs: usize,
    pub deliveries: usize,
    /// Expired webhook nonces and idempotency keys.
    pub keys: usize,
}

impl SledStore {
    /// Removes what is past its keeping at `now`: runs and deliveries
    /// ended (or made) before `cutoff`, at most `batch` of each per
    /// runner, and expired nonces and keys.
    pub fn sweep_runs(
        &self,
        now: DateTime<Utc>,
        cutoff: DateTime<Utc>,
        batch: usize,
    ) -> Result<RunSweep, StoreError> {
        let runners: Vec<Runner> = self
            .runners
            .runners
            .iter()
            .values()
            .map(|v| decode(&v.map_err(engine)?))
            .collect::<Result<_, _>>()?;
        let mut swept = RunSweep::default();
        for runner in runners {
            swept.runs += self.sweep_runner_runs(runner.org_id, runner.id, cutoff, batch)?;
            swept.deliveries +=
                self.sweep_runner_deliveries(runner.org_id, runner.id, cutoff, batch)?;
            self.sweep_runner_days(runner.org_id, runner.id, cutoff)?;
        }
        swept.keys = self.sweep_run_keys(now)?;
        Ok(swept)
    }

    fn sweep_runner_runs(
        &self,
        org: OrgId,
        runner: RunnerId,
        cutoff: DateTime<Utc>,
        batch: usize,
    ) -> Result<usize, StoreError> {
        let cutoff_us = keys::micros(cutoff);
        let prefix = keys::pair(org.as_bytes(), runner.as_bytes());
        let mut old = Vec::new();
        for key in self.runners.by_runner.scan_prefix(prefix).keys() {
            let key = key.map_err(engine)?;
            let created = key.get(32..40).map_or(u64::MAX, keys::read_u64);
            if created >= cutoff_us || old.len() >= batch {
                break;
            }
            if let Some(id) = keys::timeline_id(&key) {
                old.push(RunId::from_bytes(id));
            }
        }
        let mut removed = 0;
        for id in old {
            let Some(run) = self.run(org, id)? else {
                continue;
            };
            let ended_before = run.ended_at.is_some_and(|at| at < cutoff);
            if !(run.status.is_terminal() && ended_before) {
                continue;
            }
            // The thread first: a crash between the two leaves a run
            // whose thread is gone, which the next sweep removes.
            self.delete_thread(org, run.thread_id)?;
            self.remove_run(&run)?;
            removed += 1;
        }
        Ok(removed)
    }

    fn remove_run(&self, run: &RunRecord) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        let t = &self.runners;
        (&t.runs, &t.by_runner)
            .transaction(|(runs, by_runner)| {
                runs.remove(&run_key(run.org_id, run.id)[..])?;
                by_runner.remove(timeline_key(run))?;
                Ok(())
            })
            .map_err(tx_error)
    }

    fn sweep_runner_deliveries(
        &self,
        org: OrgId,
        runner: RunnerId,
        cutoff: DateTime<Utc>,
        batch: usize,
    ) -> Result<usize, StoreError> {
        let cutoff_us = keys::micros(cutoff);
        let prefix = keys::pair(org.as_bytes(), runner.as_bytes());
        let tree = &self.runners.deliveries.deliveries;
        let mut removed = 0;
        for entry in tree.scan_prefix(prefix) {
            let (key, value) = entry.map_err(engine)?;
            let created = key.get(32..40).map_or(u64::MAX, keys::read_u64);
            if created >= cutoff_us || removed >= batch {
                break;
            }
            let record: DeliveryRecord = decode(&value)?;
            // A pending one is still owed its attempts (and counted).
            if record.delivery.status != DeliveryStatus::Pending {
                let _writing = self.gate.writing();
                let swapped = tree.compare_and_swap(key, Some(value), None::<&[u8]>);
                removed += usize::from(swapped.map_err(engine)?.is_ok());
            }
        }
        Ok(removed)
    }

    /// Nonces past their expiry and idempotency keys past 24 hours.
    fn sweep_run_keys(&self, now: DateTime<Utc>) -> Result<usize, StoreError> {
        let _writing = self.gate.writing();
        let trees = &self.runners.triggers;
        let now_us = keys::micros(now);
        let mut stale = Vec::new();
        for entry in trees.nonces.iter() {
            let (key, expiry) = entry.map_err(engine)?;
            if keys::read_u64(&expiry) <= now_us {
                stale.push((key, expiry));
            }
        }
        let mut removed = 0;
        // Compare-and-swap: a nonce used again meanwhile is kept.
        for (key, value) in stale {
            let swapped = trees
                .nonces
                .compare_and_swap(key, Some(value), None::<&[u8]>);
            removed += usize::from(swapped.map_err(engine)?.is_ok());
        }
        let mut stale = Vec::new();
        let keep = Duration::hours(crate::runners::triggers::KEY_KEEP_HOURS);
        for entry in trees.keys.iter() {
            let (key, value) = entry.map_err(engine)?;
            let expired = decode::<WebhookKey>(&value).map_or(true, |k| now - k.created_at >= keep);
            if expired {
                stale.push((key, value));
            }
        }
        for (key, value) in stale {
            let swapped = trees.keys.compare_and_swap(key, Some(value), None::<&[u8]>);
            removed += usize::from(swapped.map_err(engine)?.is_ok());
        }
        Ok(removed)
    }
}
