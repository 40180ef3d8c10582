//! A turn's spending limits, set by its sender (a runner's run,
//! `runners.md` Budgets): asked before each model call, the compaction's
//! included, so that a call begun under every limit runs to its end and
//! the turn then pauses as a compaction pause does (`done {ok: true,
//! paused: "budget_exceeded"}`), its steps and tool results so far kept.

use std::future::Future;
use std::pin::Pin;

/// What [`TurnBudget::before_call`] answers: the limit the next call would
/// break (`max_steps`, `max_tokens`…), or none.
pub type BudgetFuture = Pin<Box<dyn Future<Output = Option<String>> + Send>>;

/// Limits a turn's model calls beyond the turn engine's own.
pub trait TurnBudget: Send + Sync {
    /// Whether model call `step` (from 1) of the turn may begin; the
    /// limit it would break if not. `unstored` are the usage records of
    /// the turn's earlier calls, which the store holds only once the
    /// answer is written: the spend so far is the store's and these.
    fn before_call(&self, step: u32, unstored: &[crate::UsageRecord]) -> BudgetFuture;

    /// Calls the turn may make before its last one is made without tools:
    /// a budget that counts steps itself lifts the engine's cap.
    fn step_cap(&self) -> u32;
}

impl std::fmt::Debug for dyn TurnBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurnBudget")
            .field("step_cap", &self.step_cap())
            .finish()
    }
}
