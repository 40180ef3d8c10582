//! Each runner's UTC-day totals (`runners.md` Budgets rule 1: "a
//! per-(runner, day) aggregate"): the runs made that day and their
//! recorded cost, kept in the `runner_backlog` tree under
//! `org ++ runner ++ day` (days since the epoch, u32 BE), beside the
//! 32-byte backlog counts. That tree is in every transaction that makes
//! or changes a run, so [`count`] keeps the totals in step with the
//! records; the daily cost limit and `GET …/budget` read one key instead
//! of the day's runs.

use chrono::{DateTime, NaiveDate, Utc};
use confer_actors::{OrgId, RunnerId, StoreError};
use sled::transaction::TransactionalTree;

use super::Tx;
use crate::runners::RunRecord;
use crate::store::{SledStore, engine, keys, tx_error};

/// A runner's runs and cost on one UTC day.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RunnerDay {
    pub runs: u64,
    pub cost_usd: f64,
}

fn day_number(date: NaiveDate) -> u32 {
    // `NaiveDate::default()` is 1970-01-01.
    u32::try_from((date - NaiveDate::default()).num_days()).unwrap_or(0)
}

fn day_key(org: OrgId, runner: RunnerId, date: NaiveDate) -> [u8; 36] {
    let mut key = [0u8; 36];
    key[..32].copy_from_slice(&keys::pair(org.as_bytes(), runner.as_bytes()));
    key[32..].copy_from_slice(&day_number(date).to_be_bytes());
    key
}

fn decode_day(bytes: Option<&[u8]>) -> RunnerDay {
    match bytes {
        Some(b) if b.len() == 16 => RunnerDay {
            runs: keys::read_u64(&b[..8]),
            cost_usd: f64::from_bits(keys::read_u64(&b[8..])),
        },
        _ => RunnerDay::default(),
    }
}

fn encode_day(day: RunnerDay) -> [u8; 16] {
    let mut value = [0u8; 16];
    value[..8].copy_from_slice(&day.runs.to_be_bytes());
    value[8..].copy_from_slice(&day.cost_usd.to_bits().to_be_bytes());
    value
}

/// Counts `new` (over `old`; none: a creation) in its creation day: one
/// run when made, and the change of its recorded cost.
pub(super) fn count(
    tree: &TransactionalTree,
    old: Option<&RunRecord>,
    new: &RunRecord,
) -> Result<(), Tx> {
    let made = u64::from(old.is_none());
    let cost = new.usage.cost_usd - old.map_or(0.0, |o| o.usage.cost_usd);
    if made == 0 && cost == 0.0 {
        return Ok(());
    }
    let key = day_key(new.org_id, new.runner_id, new.created_at.date_naive());
    let mut day = decode_day(tree.get(key)?.as_deref());
    day.runs += made;
    day.cost_usd += cost;
    tree.insert(&key[..], &encode_day(day)[..])?;
    Ok(())
}

impl SledStore {
    /// The runner's runs made on the UTC day of `at`, and their cost as
    /// recorded.
    pub fn runner_day(
        &self,
        org: OrgId,
        runner: RunnerId,
        at: DateTime<Utc>,
    ) -> Result<RunnerDay, StoreError> {
        let key = day_key(org, runner, at.date_naive());
        let value = self.runners.backlog.get(key).map_err(engine)?;
        Ok(decode_day(value.as_deref()))
    }

    /// Adds a cost made outside the runner's runs (its suggestions'
    /// call) to the UTC day of `at`. A transaction on the tree, as the
    /// runs' own writes of the same key are.
    pub fn add_runner_day_cost(
        &self,
        org: OrgId,
        runner: RunnerId,
        at: DateTime<Utc>,
        cost_usd: f64,
    ) -> Result<(), StoreError> {
        if cost_usd == 0.0 {
            return Ok(());
        }
        let _writing = self.gate.writing();
        let key = day_key(org, runner, at.date_naive());
        self.runners
            .backlog
            .transaction(|tree| {
                let mut day = decode_day(tree.get(key)?.as_deref());
                day.cost_usd += cost_usd;
                tree.insert(&key[..], &encode_day(day)[..])?;
                Ok(())
            })
            .map_err(tx_error)
    }

    /// Forgets the runner's days before `cutoff` (the retention sweep).
    pub(super) fn sweep_runner_days(
        &self,
        org: OrgId,
        runner: RunnerId,
        cutoff: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let start = day_key(org, runner, NaiveDate::default());
        let end = day_key(org, runner, cutoff.date_naive());
        let old: Vec<sled::IVec> = self
            .runners
            .backlog
            .range(start..end)
            .keys()
            .collect::<Result<_, _>>()
            .map_err(engine)?;
        for key in old {
            self.runners.backlog.remove(key).map_err(engine)?;
        }
        Ok(())
    }
}
