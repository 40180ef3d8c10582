//! Fallback models (`vendor-options.md`, "Fallback models"): a vendor A
//! model call that failed before its first token in a way another model may
//! not (the model unknown or refused, the vendor rate limiting or down after
//! its retries) is made again with the send's next fallback model, of any
//! provider (the user's key for it resolved afresh). The replaced call is
//! billed if its vendor accepted it; no `error` is sent for it, and `meta`
//! is not sent again.

use super::model_step::CallKey;
use super::{ModelOutcome, Turn};

/// The provider whose models may name fallbacks (`anthropicOverrides`).
const FALLBACK_OWNER: &str = "anthropic";

/// Where a turn stands in its send's fallback models: `None` when they do
/// not apply (the send's model is not vendor A's), else how many were tried.
pub(super) fn fallback_cursor(first_provider: &str) -> Option<usize> {
    (first_provider == FALLBACK_OWNER).then_some(0)
}

impl Turn {
    /// The send's next fallback model not tried yet, if any.
    fn next_fallback(&mut self) -> Option<String> {
        let tried = self.fallbacks_tried.as_mut()?;
        let next = self.request.options.anthropic.fallback_models.get(*tried)?;
        *tried += 1;
        Some(next.clone())
    }

    /// Whether a fallback model is left to try.
    fn has_fallback(&self) -> bool {
        self.fallbacks_tried
            .is_some_and(|tried| tried < self.request.options.anthropic.fallback_models.len())
    }

    /// `outcome`, or `Err` with it when a fallback model is to replace it
    /// (boxed: the turn task keeps room for whatever it holds while the
    /// fallback runs, and most calls need none).
    pub(super) fn fallback_due(
        &self,
        outcome: ModelOutcome,
    ) -> Result<ModelOutcome, Box<ModelOutcome>> {
        if outcome.replaceable() && self.has_fallback() {
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
            let Some(next) = self.next_fallback() else {
                break;
            };
            self.bill(&outcome);
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
}
