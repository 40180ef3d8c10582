//! Runners and their runs (`runners.md`).
//!
//! | tree              | key                                         | value    |
//! |-------------------|---------------------------------------------|----------|
//! | `runners`         | org ++ runner                               | `Runner` |
//! | `runner_budgets`  | org ++ runner                               | `Budget` (absent: the default) |
//! | `runs`            | org ++ run                                  | `RunRecord` |
//! | `runs_by_runner`  | org ++ runner ++ created µs BE ++ run       | empty    |
//! | `run_queue`       | queued µs BE ++ run                         | org ++ runner |
//! | `runs_open`       | run                                         | org      |
//! | `runner_suggestions` | org ++ runner                            | `RunnerSuggestions` |
//! | `runner_deletions` | org ++ runner                              | empty: a deletion not finished |
//! | `runner_buttons`  | runner (++ day)                              | `Button` and its day counts (`buttons`) |
//! | `runner_backlog`  | org ++ runner                               | u64 BE: runs queued or waiting |
//! |                   | org ++ runner ++ day u32 BE                 | the day's runs and cost (`days`) |
//!
//! Every change of a run goes through [`save_run`], in the transaction
//! that makes it, so the indexes always agree with the record: a queued
//! run is in `run_queue` (FIFO by the time it was queued), a running or
//! waiting one in `runs_open` (the restart and expiry scans), and the
//! backlog counts the runs `max_queued_runs` limits.

use chrono::{DateTime, Utc};
use confer_actors::{OrgId, RunId, RunnerId, StoreError};
use sled::transaction::{ConflictableTransactionError, TransactionalTree};

use super::codec::{decode, encode};
use super::keys;
use super::update::{Updated, swap};
use super::{SledStore, abort, engine, next_org_instant};
use crate::runners::{Budget, RunRecord, RunStatus, Runner};

/// The runner trees.
pub struct RunnerTrees {
    pub(in crate::store) runners: sled::Tree,
    budgets: sled::Tree,
    pub(in crate::store) runs: sled::Tree,
    pub(in crate::store) by_runner: sled::Tree,
    pub(in crate::store) queue: sled::Tree,
    pub(in crate::store) open: sled::Tree,
    pub(in crate::store) backlog: sled::Tree,
    /// Triggers and the inbound webhooks' state (see `triggers`).
    triggers: triggers::TriggerTrees,
    /// Completion webhooks' deliveries and secrets (see `deliveries`).
    deliveries: deliveries::DeliveryTrees,
    /// Each runner's suggestions (see `suggestions`).
    suggestions: sled::Tree,
    /// Deletions begun and not yet finished (see `deletion`).
    deletions: sled::Tree,
    /// Each runner's button and its day counts (see `buttons`).
    buttons: sled::Tree,
}

impl RunnerTrees {
    /// Opens (or creates) the trees in `db`.
    pub fn open(db: &sled::Db) -> Result<Self, StoreError> {
        let tree = |name: &str| db.open_tree(name).map_err(engine);
        Ok(Self {
            runners: tree("runners")?,
            budgets: tree("runner_budgets")?,
            runs: tree("runs")?,
            by_runner: tree("runs_by_runner")?,
            queue: tree("run_queue")?,
            open: tree("runs_open")?,
            backlog: tree("runner_backlog")?,
            triggers: triggers::TriggerTrees::open(db)?,
            deliveries: deliveries::DeliveryTrees::open(db)?,
            suggestions: tree("runner_suggestions")?,
            deletions: tree("runner_deletions")?,
            buttons: tree("runner_buttons")?,
        })
    }
}

/// The outcome of a run's creation.
#[derive(Debug)]
pub enum RunCreated {
    Stored(Box<RunRecord>),
    /// The runner has `max_queued_runs` queued or waiting.
    QueueFull,
    /// The runner was deleted meanwhile.
    RunnerGone,
}

/// Whether a run in `status` counts against `max_queued_runs`.
fn in_backlog(status: RunStatus) -> bool {
    matches!(
        status,
        RunStatus::Queued | RunStatus::RequiresAction | RunStatus::Paused
    )
}

pub(in crate::store) fn run_key(org: OrgId, run: RunId) -> [u8; 32] {
    keys::pair(org.as_bytes(), run.as_bytes())
}

fn queue_key(run: &RunRecord, at: DateTime<Utc>) -> Vec<u8> {
    [&keys::micros(at).to_be_bytes()[..], run.id.as_bytes()].concat()
}

fn timeline_key(run: &RunRecord) -> Vec<u8> {
    [
        run.org_id.as_bytes().as_slice(),
        run.runner_id.as_bytes(),
        &keys::micros(run.created_at).to_be_bytes(),
        run.id.as_bytes(),
    ]
    .concat()
}

fn read_u64(bytes: Option<sled::IVec>) -> u64 {
    bytes
        .and_then(|b| <[u8; 8]>::try_from(b.as_ref()).ok())
        .map_or(0, u64::from_be_bytes)
}

pub(in crate::store) type Tx = ConflictableTransactionError<StoreError>;

/// The run trees inside one transaction (and, for a status change,
/// the trees its completion webhook's delivery goes to).
struct RunTx<'a> {
    runs: &'a TransactionalTree,
    queue: &'a TransactionalTree,
    open: &'a TransactionalTree,
    backlog: &'a TransactionalTree,
    events: Option<deliveries::EventTx<'a>>,
}

impl RunTx<'_> {
    fn read(&self, org: OrgId, id: RunId) -> Result<Option<RunRecord>, Tx> {
        self.runs
            .get(run_key(org, id))?
            .map(|b| decode(&b).map_err(abort))
            .transpose()
    }

    /// Writes `new` over `old` (none: a creation), keeping the indexes.
    /// A run going back to `queued` is queued at `now` (the end of the
    /// FIFO).
    fn save(&self, old: Option<&RunRecord>, new: &RunRecord) -> Result<(), Tx> {
        let (org, id) = (new.org_id, new.id);
        let old_status = old.map(|r| r.status);
        let mut reported;
        let new = match &self.events {
            Some(events) if old_status != Some(new.status) => {
                reported = new.clone();
                events.report(&mut reported)?;
                &reported
            }
            _ => new,
        };
        if old_status != Some(new.status) {
            if let Some(old) = old.filter(|o| o.status == RunStatus::Queued) {
                self.queue
                    .remove(queue_key(old, keys::from_micros(old.progress.queued_us)))?;
            }
            if new.status == RunStatus::Queued {
                self.queue.insert(
                    queue_key(new, keys::from_micros(new.progress.queued_us)),
                    keys::pair(org.as_bytes(), new.runner_id.as_bytes()).as_slice(),
                )?;
            }
            let open = |s: RunStatus| !s.is_terminal() && s != RunStatus::Queued;
            if open(new.status) {
                self.open.insert(id.as_bytes(), org.as_bytes().as_slice())?;
            } else if old_status.is_some_and(open) {
                self.open.remove(id.as_bytes())?;
            }
            let was = old_status.is_some_and(in_backlog);
            let is = in_backlog(new.status);
            if was != is {
                let key = keys::pair(org.as_bytes(), new.runner_id.as_bytes());
                let count = read_u64(self.backlog.get(key)?);
                let count = if is {
                    count + 1
                } else {
                    count.saturating_sub(1)
                };
                self.backlog.insert(&key[..], &count.to_be_bytes())?;
            }
        }
        days::count(self.backlog, old, new)?;
        self.runs
            .insert(&run_key(org, id)[..], encode(new).map_err(abort)?)?;
        Ok(())
    }
}

/// The trees a run's creation writes, inside one transaction (a run
/// create, or a schedule's firing).
pub(in crate::store) struct NewRunTx<'a> {
    pub runners: &'a TransactionalTree,
    pub runs: &'a TransactionalTree,
    pub by_runner: &'a TransactionalTree,
    pub queue: &'a TransactionalTree,
    pub open: &'a TransactionalTree,
    pub backlog: &'a TransactionalTree,
    pub clocks: &'a TransactionalTree,
}

impl NewRunTx<'_> {
    /// Stores `run` queued unless its runner went or its backlog holds
    /// `max_queued`; `created_at` is made unique within the org.
    pub fn create(&self, run: &RunRecord, max_queued: u32) -> Result<RunCreated, Tx> {
        let runner_key = keys::pair(run.org_id.as_bytes(), run.runner_id.as_bytes());
        let live = self
            .runners
            .get(runner_key)?
            .map(|b| decode::<Runner>(&b).map_err(abort))
            .transpose()?
            .is_some_and(|r| r.deleted_at.is_none());
        if !live {
            return Ok(RunCreated::RunnerGone);
        }
        if read_u64(self.backlog.get(runner_key)?) >= u64::from(max_queued) {
            return Ok(RunCreated::QueueFull);
        }
        let at = next_org_instant(self.clocks, run.org_id, run.created_at)?;
        let mut stored = run.clone();
        stored.created_at = keys::from_micros(at);
        stored.progress.queued_us = at;
        self.by_runner.insert(timeline_key(&stored), &[])?;
        let tx = RunTx {
            runs: self.runs,
            queue: self.queue,
            open: self.open,
            backlog: self.backlog,
            // A new run is queued: no event to report.
            events: None,
        };
        tx.save(None, &stored)?;
        Ok(RunCreated::Stored(Box::new(stored)))
    }

    /// Whether the run exists.
    pub fn exists(&self, org: OrgId, id: RunId) -> Result<bool, Tx> {
        Ok(self.runs.get(run_key(org, id))?.is_some())
    }
}

mod buttons;
pub mod days;
mod deletion;
pub mod deliveries;
pub mod keyed;
pub mod retention;
mod runs;
mod suggestions;
#[cfg(test)]
mod tests;
pub mod triggers;

impl SledStore {
    // ---- runners -------------------------------------------------------------

    /// Stores a new runner unless the org has `max` live ones.
    pub fn put_runner(&self, runner: &Runner, max: usize) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let live = self
            .runners
            .runners
            .scan_prefix(runner.org_id.as_bytes())
            .values()
            .filter_map(Result::ok)
            .filter_map(|b| decode::<Runner>(&b).ok())
            .filter(|r| r.deleted_at.is_none())
            .count();
        if live >= max {
            return Ok(false);
        }
        self.runners
            .runners
            .insert(
                &keys::pair(runner.org_id.as_bytes(), runner.id.as_bytes())[..],
                encode(runner)?,
            )
            .map_err(engine)?;
        Ok(true)
    }

    /// The runner, deleted or not.
    pub fn runner(&self, org: OrgId, id: RunnerId) -> Result<Option<Runner>, StoreError> {
        Self::get(
            &self.runners.runners,
            &keys::pair(org.as_bytes(), id.as_bytes()),
        )?
        .map(|runner| self.runner_in_live_project(runner))
        .transpose()
    }

    /// The org's live runners, oldest first (UUIDv7 order).
    pub fn runners(&self, org: OrgId) -> Result<Vec<Runner>, StoreError> {
        let mut out = Vec::new();
        for entry in self.runners.runners.scan_prefix(org.as_bytes()).values() {
            let runner: Runner = decode(&entry.map_err(engine)?)?;
            if runner.deleted_at.is_none() {
                out.push(self.runner_in_live_project(runner)?);
            }
        }
        Ok(out)
    }

    /// The runner's budget (a new runner's default until one is put).
    pub fn runner_budget(&self, org: OrgId, id: RunnerId) -> Result<Budget, StoreError> {
        Ok(Self::get(
            &self.runners.budgets,
            &keys::pair(org.as_bytes(), id.as_bytes()),
        )?
        .unwrap_or_default())
    }

    /// Changes the runner's budget by compare-and-swap.
    pub fn update_runner_budget<E>(
        &self,
        org: OrgId,
        id: RunnerId,
        change: impl FnMut(Budget) -> Result<Budget, E>,
    ) -> Result<Updated<Budget, E>, StoreError> {
        let _writing = self.gate.writing();
        swap(
            &self.runners.budgets,
            &keys::pair(org.as_bytes(), id.as_bytes()),
            |bytes| {
                Ok(Some(match bytes {
                    Some(b) => decode(b)?,
                    None => Budget::default(),
                }))
            },
            change,
        )
    }

    /// Changes a live runner by compare-and-swap.
    pub fn update_runner<E>(
        &self,
        org: OrgId,
        id: RunnerId,
        change: impl FnMut(Runner) -> Result<Runner, E>,
    ) -> Result<Updated<Runner, E>, StoreError> {
        let _writing = self.gate.writing();
        swap(
            &self.runners.runners,
            &keys::pair(org.as_bytes(), id.as_bytes()),
            |bytes| {
                Ok(match bytes {
                    Some(b) => Some(decode::<Runner>(b)?).filter(|r| r.deleted_at.is_none()),
                    None => None,
                })
            },
            change,
        )
    }
}
