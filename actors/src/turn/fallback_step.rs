//! Fallback models (`vendor-options.md`, "Fallback models"): a vendor A
//! model call that failed before its first token in a way another model may
//! not (the model unknown or refused, the vendor rate limiting or down after
//! its retries) is made again with the send's next fallback model, of any
//! provider (the user's key for it resolved afresh). The replaced call is
//! billed if its vendor accepted it; no `error` is sent for it, and `meta`
//! is not sent again.

use std::collections::VecDeque;

use super::model_step::CallKey;
use super::{ModelOutcome, Turn, blocking};
use crate::vendor_options::VendorOptions;

/// The provider whose models may name fallbacks (`anthropicOverrides`).
const FALLBACK_OWNER: &str = "anthropic";

/// The fallback models a send's first model may be replaced by, in order.
pub(super) fn fallbacks_for(provider: &str, options: &VendorOptions) -> VecDeque<String> {
    if provider == FALLBACK_OWNER {
        options.anthropic.fallback_models.iter().cloned().collect()
    } else {
        VecDeque::new()
    }
}

impl Turn {
    /// `outcome`, or `Err` with it when a fallback model is to replace it
    /// (boxed: the turn task keeps room for whatever it holds while the
    /// fallback runs, and most calls need none).
    pub(super) fn fallback_due(
        &self,
        outcome: ModelOutcome,
    ) -> Result<ModelOutcome, Box<ModelOutcome>> {
        if outcome.replaceable() && !self.fallbacks.is_empty() {
            Err(Box::new(outcome))
        } else {
            Ok(outcome)
        }
    }

    /// The fallback models' calls after `failed`, while each fails in a way
    /// the next may answer instead; `key` becomes the last call's key.
    pub(super) async fn fall_back(
        &mut self,
        failed: Box<ModelOutcome>,
        key: &mut CallKey,
    ) -> ModelOutcome {
        let mut outcome = *failed;
        while outcome.replaceable() {
            let Some(next) = self.fallbacks.pop_front() else {
                break;
            };
            self.bill(&outcome).await;
            let code = outcome.failure.as_ref().map_or("", |f| f.code.code);
            tracing::info!(thread = %self.thread_id, from = %self.model, to = %next, code, "falling back to another model");
            let before = std::mem::replace(&mut self.route, self.engine.provider.route(&next));
            self.model = next;
            if before.provider != self.route.provider || !before.external {
                *key = match Box::pin(self.resolve_key()).await {
                    Ok(key) => key,
                    Err(stopped) => return ModelOutcome::stopped_before_the_call(stopped),
                };
            }
            outcome = self.call_model(key).await;
        }
        outcome
    }

    /// Bills a model call that ended before the turn did (a tool step's, or
    /// one a fallback replaced), if the vendor accepted it: its tokens join
    /// the send's, and its usage record is stored now (flushed and linked
    /// with the answer). A call never accepted costs nothing and counts
    /// nothing.
    pub(super) async fn bill(&mut self, outcome: &ModelOutcome) {
        let call = self.call_usage(outcome);
        if let Some(record) = self.usage_record(outcome, &call) {
            self.spent += call;
            match blocking(&self.engine.store, move |s| s.record_usage(record)).await {
                Ok(stored) => self.billed.push(stored),
                // The answer's write will fail the same way and say so.
                Err(error) => {
                    tracing::error!(%error, thread = %self.thread_id, "billing a model call failed")
                }
            }
        }
    }
}
