//! A run's budget (`runners.md` Budgets §1–3): before each model call the
//! run's spend so far is checked against the runner's budget as it is
//! now, in the spec's order: tokens, cost, steps, running time, and the
//! runner's UTC-day cost. The turn engine asks through
//! [`confer_actors::TurnBudget`]; a resume of a paused run asks the same
//! question ([`limit_now`]).

use std::sync::{Arc, Mutex};
use std::time::Instant;

use chrono::Utc;
use confer_actors::{OrgId, PriceTable, StoreError, ThreadId, UsagePurpose, UsageRecord};

use super::{Budget, RunRecord, RunUsage};
use crate::store::usage::UsageFilter;
use crate::store::{SledStore, Store};

/// Usage records read for one run's spend (a run of more calls than this
/// counts the newest).
const RECORDS_READ: usize = 10_000;

/// What a thread's usage records add up to: tokens, priced cost, and the
/// answer's calls (compaction calls count in tokens and cost only).
pub fn thread_usage(
    store: &SledStore,
    prices: &PriceTable,
    org: OrgId,
    thread: ThreadId,
) -> Result<RunUsage, StoreError> {
    let filter = UsageFilter {
        agent: None,
        thread: Some(thread),
    };
    let page = store.list_usage(org, filter, None, RECORDS_READ, |_| Ok(true))?;
    let mut usage = RunUsage::default();
    add_records(&mut usage, prices, &page.items);
    Ok(usage)
}

/// Adds `records` to `usage`.
fn add_records(usage: &mut RunUsage, prices: &PriceTable, records: &[UsageRecord]) {
    for record in records {
        usage.input_tokens += record.input_tokens;
        usage.output_tokens += record.output_tokens;
        usage.cost_usd += prices.cost_nanos(record).unwrap_or(0) as f64 / 1e9;
        if record.purpose == UsagePurpose::Answer {
            usage.steps += 1;
        }
    }
}

/// A cost limit of `budget` that `model` cannot be held to, having no
/// price (`runners.md` Budgets §4): the refusal, naming the limit and the
/// model. `fallback` is the provider of unrecognised model names.
pub fn unpriced_cost_limit(
    budget: &Budget,
    model: &str,
    prices: &PriceTable,
    fallback: &str,
) -> Option<String> {
    let field = if budget.max_cost_usd.is_some() {
        "maxCostUsd"
    } else if budget.daily_cost_usd.is_some() {
        "dailyCostUsd"
    } else {
        return None;
    };
    let route = crate::providers::route(model, fallback);
    if prices.price(&route.provider, &route.model).is_some() {
        return None;
    }
    Some(format!(
        "{field}: the model {model} has no price (add it to CONFER_PRICES_FILE)"
    ))
}

/// The first limit of `budget` that `spent` (and `ran_ms` of running
/// time, and `day_cost_usd` of the runner's day) has reached.
pub fn limit_reached(
    budget: &Budget,
    spent: &RunUsage,
    ran_ms: u64,
    day_cost_usd: f64,
) -> Option<&'static str> {
    let tokens = spent.input_tokens + spent.output_tokens;
    if budget.max_tokens.is_some_and(|max| tokens >= max) {
        return Some("max_tokens");
    }
    if budget.max_cost_usd.is_some_and(|max| spent.cost_usd >= max) {
        return Some("max_cost_usd");
    }
    if budget.max_steps.is_some_and(|max| spent.steps >= max) {
        return Some("max_steps");
    }
    if budget
        .max_duration_secs
        .is_some_and(|max| ran_ms >= max.saturating_mul(1_000))
    {
        return Some("max_duration_secs");
    }
    if budget.daily_cost_usd.is_some_and(|max| day_cost_usd >= max) {
        return Some("daily_cost_usd");
    }
    None
}

/// The limit `run` would break with its next call, read now: the
/// runner's budget, the run's spend (stored, and `unstored`: the running
/// turn's earlier calls), and the runner's day.
pub fn limit_now(
    store: &SledStore,
    prices: &PriceTable,
    run: &RunRecord,
    ran_ms: u64,
    unstored: &[UsageRecord],
) -> Result<Option<&'static str>, StoreError> {
    let budget = store.runner_budget(run.org_id, run.runner_id)?;
    let mut spent = thread_usage(store, prices, run.org_id, run.thread_id)?;
    add_records(&mut spent, prices, unstored);
    // The day's runs as recorded, this one (made today) as it is now.
    let day = store.runner_day(run.org_id, run.runner_id, Utc::now())?;
    let recorded = match store.run(run.org_id, run.id)? {
        Some(stored) if stored.created_at.date_naive() == Utc::now().date_naive() => {
            stored.usage.cost_usd
        }
        _ => 0.0,
    };
    Ok(limit_reached(
        &budget,
        &spent,
        ran_ms,
        day.cost_usd - recorded + spent.cost_usd,
    ))
}

/// One turn's budget: asked by the turn before each model call; keeps the
/// limit that paused it.
pub struct RunBudget {
    store: Store,
    prices: Arc<PriceTable>,
    run: RunRecord,
    /// When this start of the run began (its earlier running time is in
    /// the run's progress).
    started: Instant,
    hit: Arc<Mutex<Option<String>>>,
}

impl RunBudget {
    /// The budget of `run`'s next turn.
    pub fn new(store: Store, prices: Arc<PriceTable>, run: RunRecord, started: Instant) -> Self {
        Self {
            store,
            prices,
            run,
            started,
            hit: Arc::default(),
        }
    }

    /// The limit that paused the turn, if one did.
    pub fn hit(&self) -> Option<String> {
        self.hit.lock().map_or(None, |hit| hit.clone())
    }
}

impl confer_actors::TurnBudget for RunBudget {
    fn before_call(&self, _step: u32, unstored: &[UsageRecord]) -> confer_actors::BudgetFuture {
        let (store, prices, run) = (
            self.store.clone(),
            Arc::clone(&self.prices),
            self.run.clone(),
        );
        let unstored = unstored.to_vec();
        let ran_ms = self.run.progress.ran_ms + self.started.elapsed().as_millis() as u64;
        let hit = Arc::clone(&self.hit);
        Box::pin(async move {
            let id = run.id;
            let reached = store
                .run(move |s| limit_now(s, &prices, &run, ran_ms, &unstored))
                .await
                .unwrap_or_else(|error| {
                    // The call would fail on the same store; let it say so.
                    tracing::error!(%error, run = %id, "checking a run's budget failed");
                    None
                })
                .map(str::to_owned);
            if let (Some(limit), Ok(mut kept)) = (&reached, hit.lock()) {
                *kept = Some(limit.clone());
            }
            reached
        })
    }

    fn step_cap(&self) -> u32 {
        // The budget counts the run's steps itself (`max_steps`).
        u32::MAX
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_checked_in_the_contracts_order_and_reached_at_equality() {
        let budget = Budget {
            max_tokens: Some(100),
            max_cost_usd: Some(1.0),
            max_steps: Some(3),
            max_duration_secs: Some(10),
            daily_cost_usd: Some(5.0),
        };
        let mut spent = RunUsage::default();
        assert_eq!(limit_reached(&budget, &spent, 0, 0.0), None);
        spent.steps = 3;
        assert_eq!(limit_reached(&budget, &spent, 0, 0.0), Some("max_steps"));
        spent.cost_usd = 1.0;
        assert_eq!(limit_reached(&budget, &spent, 0, 0.0), Some("max_cost_usd"));
        spent.input_tokens = 60;
        spent.output_tokens = 40;
        assert_eq!(limit_reached(&budget, &spent, 0, 0.0), Some("max_tokens"));
        let spent = RunUsage::default();
        assert_eq!(
            limit_reached(&budget, &spent, 10_000, 0.0),
            Some("max_duration_secs")
        );
        assert_eq!(
            limit_reached(&budget, &spent, 0, 5.0),
            Some("daily_cost_usd")
        );
        let none = Budget {
            max_steps: None,
            max_duration_secs: None,
            ..Budget::default()
        };
        assert_eq!(limit_reached(&none, &spent, u64::MAX, f64::MAX), None);
    }
}
