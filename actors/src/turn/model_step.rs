//! The model step: resolve the user's own vendor key, then one model call
//! (its stream read by `model_stream`); a stop reaches both at once.

use std::sync::Arc;
use std::time::Instant;

use super::model_stream::{Relay, consume};
use super::outcome::PLATFORM_KEY;
use super::{CancelReason, ModelOutcome, Turn, until_cancelled};
use crate::codes;
use crate::provider::{CallOrigin, KeyRequest, ModelRequest, VendorKey, estimate_tokens};
use crate::timings::micros_between;
use crate::trace::{SpanAttributes, SpanKind, Stamp};
use crate::turn_metrics;

/// The key a model call uses: the user's own (from the agent's resolver)
/// or, `None`, the platform's.
#[derive(Clone)]
pub(super) struct CallKey {
    pub(super) api_key: Option<VendorKey>,
    pub(super) source: String,
}

impl Turn {
    /// The user's own key, when the agent has a resolver and a vendor is
    /// called; a stop meanwhile ends the wait.
    pub(super) async fn resolve_key(&mut self) -> Result<CallKey, CancelReason> {
        let mut key = CallKey {
            api_key: None,
            source: PLATFORM_KEY.to_owned(),
        };
        let credentials = &self.credentials;
        if self.route.external
            && credentials.enabled
            && !credentials.resolver_url.is_empty()
            && let Some(signing_secret) = credentials.signing_secret.clone()
        {
            let asked = KeyRequest {
                user_id: self.request.user_id.clone(),
                org_id: self.org.to_string(),
                provider: self.route.provider.clone(),
                model: self.route.model.clone(),
                resolver_url: credentials.resolver_url.clone(),
                timeout_ms: credentials.timeout_ms,
                signing_secret,
            };
            let resolver = &self.engine.resolver;
            let from = Stamp::now();
            if let Some(resolved) =
                until_cancelled(&mut self.cancel, resolver.resolve(asked)).await?
            {
                key = CallKey {
                    api_key: Some(resolved.key),
                    source: resolved.source,
                };
            }
            let attributes = SpanAttributes {
                key_source: Some(key.source.clone()),
                ..SpanAttributes::default()
            };
            let root = self.trace.root();
            self.trace
                .span(root, SpanKind::Resolver, "resolver", from, attributes, None);
        }
        self.timings.key_us = self.clock.lap();
        Ok(key)
    }

    /// The system prompt of this turn's calls: the stable preamble and the
    /// skills' list (the cached prefix), then the overlays (thread, send,
    /// the tools' briefing).
    pub(super) fn system_prompt(&self) -> String {
        compose_system_prompt(&[
            Some(&self.agent.stable_preamble),
            self.skills_prompt.as_deref(),
            self.thread.system_prompt_overlay.as_deref(),
            self.request.system_prompt_overlay.as_deref(),
            self.briefing.as_deref(),
        ])
    }

    /// One model call over the whole context, read to its end or a stop.
    pub(super) async fn call_model(&mut self, key: &CallKey) -> ModelOutcome {
        let system = self.system_prompt();
        // The request shares the context; it comes back without a copy once
        // the provider has built its body from it.
        let context = Arc::new(std::mem::take(&mut self.history));
        let request = ModelRequest {
            route: self.route.clone(),
            system_stable_len: match &self.skills_prompt {
                None => stable_len(&self.agent.stable_preamble),
                Some(skills) => stable_len(&compose_system_prompt(&[
                    Some(&self.agent.stable_preamble),
                    Some(skills),
                ])),
            },
            origin: Some(CallOrigin {
                org: self.org,
                thread: self.thread_id,
                user: self.scope.user_id.clone(),
            }),
            system,
            messages: Arc::clone(&context),
            tools: self
                .client_tools
                .iter()
                .chain(&self.server_tools)
                .cloned()
                .collect(),
            api_key: key.api_key.clone(),
            tool_choice_none: self.step > self.step_cap(),
            compaction: self.compaction.enabled.then(|| self.compaction.clone()),
            options: Arc::clone(&self.request.options),
        };
        let estimated_input = estimate_tokens(&request.system)
            + request
                .messages
                .iter()
                .map(|m| estimate_tokens(&m.content))
                .sum::<u64>();
        let from = Stamp::now();
        let called = from.instant;
        let stream = self.engine.provider.stream(request);
        self.history = Arc::try_unwrap(context).unwrap_or_else(|shared| (*shared).clone());
        // A step's text that follows earlier text starts with a blank line,
        // sent as a token so the deltas still add up to `done.content`.
        let joiner = (!self.answer.is_empty()).then_some("\n\n");
        let relay = Relay {
            emitter: &self.emitter,
            joiner,
            thinking: self.request.options.stream_thinking,
            sources: self.scope.knowledge.enabled.then_some(&*self.scope.sources),
        };
        let mut outcome = consume(stream, relay, &mut self.cancel).await;
        crate::gating::fix_call_ids(&self.history, &mut outcome.tool_calls);
        if let Some(failure) = outcome
            .failure
            .as_mut()
            .filter(|f| f.code == codes::CONTEXT_TOO_LONG)
        {
            failure.detail = if self.compaction.enabled {
                format!(
                    "{}; compaction is on for this agent: lower its trigger \
                     (PUT /api/agents/{{id}}/compaction)",
                    failure.detail
                )
            } else {
                format!(
                    "{}; enable compaction for this agent (PUT /api/agents/{{id}}/compaction \
                     {{\"enabled\": true}}) or start a new thread",
                    failure.detail
                )
            };
        }
        outcome.estimated_input = estimated_input;
        outcome.key_source = key.source.clone();
        self.timings.first_token_us = outcome
            .first_text
            .map_or(0, |first| micros_between(called, first));
        self.timings.stream_us = micros_between(called, Instant::now());
        self.trace_call(&outcome, from);
        outcome
    }

    /// The model call's span, and its metrics.
    fn trace_call(&mut self, outcome: &ModelOutcome, from: Stamp) {
        let ttft_ms = outcome.first_text.map(|first| from.ms_until(first));
        if let Some(first) = outcome.first_text {
            self.trace.first_token(first);
        }
        let finish = if outcome.failure.is_some() {
            "error"
        } else if outcome.stopped_by.is_some() {
            "stopped"
        } else if outcome.paused {
            "pause"
        } else if !outcome.tool_calls.is_empty() {
            "tool_calls"
        } else {
            "stop"
        };
        let metric_outcome = match finish {
            "error" | "stopped" => finish,
            _ => "ok",
        };
        turn_metrics::model_call(
            &self.route.provider,
            metric_outcome,
            ttft_ms.map(|ms| ms / 1000.0),
        );
        let attributes = SpanAttributes {
            provider: Some(self.route.provider.clone()),
            model: Some(self.route.model.clone()),
            key_source: Some(outcome.key_source.clone()),
            input_tokens: outcome.input_tokens,
            output_tokens: outcome.output_tokens,
            ttft_ms,
            finish_reason: Some(finish.to_owned()),
            step: Some(self.step),
            ..SpanAttributes::default()
        };
        let error = outcome
            .failure
            .as_ref()
            .map(|f| format!("{}: {}", f.code.code, f.detail));
        let root = self.trace.root();
        let span = self
            .trace
            .span(root, SpanKind::Llm, "model_call", from, attributes, error);
        self.trace.payload(span, None, Some(&outcome.content));
    }
}

/// How much of the composed system prompt `preamble` makes (as
/// `compose_system_prompt` joins it: trimmed at the end, left out if blank).
fn stable_len(preamble: &str) -> usize {
    if preamble.trim().is_empty() {
        0
    } else {
        preamble.trim_end().len()
    }
}

/// The system prompt: preamble, thread overlay, message overlay, joined by a
/// blank line, empty parts left out.
pub fn compose_system_prompt(parts: &[Option<&str>]) -> String {
    parts
        .iter()
        .flatten()
        .map(|p| p.trim_end())
        .filter(|p| !p.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_prompt_joins_present_parts() {
        assert_eq!(
            compose_system_prompt(&[Some("Be terse."), None, Some("Answer in French.")]),
            "Be terse.\n\nAnswer in French."
        );
        assert_eq!(compose_system_prompt(&[Some(""), Some("  "), None]), "");
        assert_eq!(compose_system_prompt(&[None, Some("x")]), "x");
    }
}
