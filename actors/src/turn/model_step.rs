//! The model step: resolve the user's own vendor key, then one model call,
//! its text relayed as `token` frames, its tool calls and reasoning blocks
//! assembled; a stop reaches both at once.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use futures_util::StreamExt;
use serde_json::Value;
use tokio::sync::oneshot;

use super::{CancelReason, Emitter, Turn, compose_system_prompt, until_cancelled};
use crate::codes;
use crate::events::ThreadEvent;
use crate::provider::{
    CallOrigin, CompactionBlock, FinishReason, KeyRequest, ModelError, ModelEvent, ModelRequest,
    ReasoningBlock, ReasoningPiece, ToolCall, VendorKey, estimate_tokens,
};
use crate::timings::micros_between;
use crate::tools::MAX_TOOL_STEPS;

/// `key_source` of a call made with the operator's own vendor key.
const PLATFORM_KEY: &str = "platform";

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
            if let Some(resolved) =
                until_cancelled(&mut self.cancel, resolver.resolve(asked)).await?
            {
                key = CallKey {
                    api_key: Some(resolved.key),
                    source: resolved.source,
                };
            }
        }
        self.timings.key_us = self.clock.lap();
        Ok(key)
    }

    /// The system prompt of this turn's calls: the stable preamble, then
    /// the overlays (thread, send, the tools' briefing).
    pub(super) fn system_prompt(&self) -> String {
        compose_system_prompt(&[
            Some(&self.agent.stable_preamble),
            self.thread.system_prompt_overlay.as_deref(),
            self.request.system_prompt_overlay.as_deref(),
            self.briefing.as_deref(),
        ])
    }

    /// One model call over the whole context, read to its end or a stop.
    pub(super) async fn call_model(&mut self, key: CallKey) -> ModelOutcome {
        let system = self.system_prompt();
        // The request shares the context; it comes back without a copy once
        // the provider has built its body from it.
        let context = Arc::new(std::mem::take(&mut self.history));
        let request = ModelRequest {
            route: self.route.clone(),
            system_stable_len: stable_len(&self.agent.stable_preamble),
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
            api_key: key.api_key,
            tool_choice_none: self.step > MAX_TOOL_STEPS,
            compaction: self.compaction.enabled.then(|| self.compaction.clone()),
        };
        let estimated_input = estimate_tokens(&request.system)
            + request
                .messages
                .iter()
                .map(|m| estimate_tokens(&m.content))
                .sum::<u64>();
        let called = Instant::now();
        let stream = self.engine.provider.stream(request);
        self.history = Arc::try_unwrap(context).unwrap_or_else(|shared| (*shared).clone());
        // A step's text that follows earlier text starts with a blank line,
        // sent as a token so the deltas still add up to `done.content`.
        let joiner = (!self.answer.is_empty()).then_some("\n\n");
        let mut outcome = consume(stream, &self.emitter, &mut self.cancel, joiner).await;
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
        outcome.key_source = key.source;
        self.timings.first_token_us = outcome
            .first_text
            .map_or(0, |first| micros_between(called, first));
        self.timings.stream_us = micros_between(called, Instant::now());
        outcome
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

/// A tool call being assembled from the stream's pieces.
#[derive(Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

impl PartialCall {
    fn finish(self) -> ToolCall {
        let (arguments, arguments_error) = if self.arguments.trim().is_empty() {
            (Value::Object(serde_json::Map::new()), None)
        } else {
            match serde_json::from_str(&self.arguments) {
                Ok(arguments) => (arguments, None),
                Err(_) => (
                    Value::String(self.arguments),
                    Some(crate::context::INVALID_JSON.to_owned()),
                ),
            }
        };
        ToolCall {
            id: self.id,
            name: self.name,
            arguments,
            arguments_error,
        }
    }
}

/// What a model call produced.
pub struct ModelOutcome {
    pub(super) content: String,
    pub(super) tool_calls: Vec<ToolCall>,
    pub(super) input_tokens: Option<u64>,
    pub(super) output_tokens: Option<u64>,
    /// Of the input, what the vendor read from and wrote to its prompt cache.
    pub(super) cache_read_tokens: Option<u64>,
    pub(super) cache_write_tokens: Option<u64>,
    pub(super) failure: Option<ModelError>,
    /// Why the turn was stopped, if it was.
    pub(super) stopped_by: Option<CancelReason>,
    /// When the first text arrived.
    pub(super) first_text: Option<Instant>,
    /// The answer's reasoning blocks, in order.
    pub(super) reasoning: Vec<ReasoningBlock>,
    /// The vendor's compaction block the answer began with.
    pub(super) compaction: Option<CompactionBlock>,
    /// Whether the vendor accepted the request (a 2xx answer): only then is
    /// the call billed and recorded.
    pub(super) accepted: bool,
    /// The request's size in estimated tokens, for a vendor that reports none.
    pub(super) estimated_input: u64,
    /// Whose key paid for the call: `platform` or the resolver's source.
    pub(super) key_source: String,
    /// The call's usage and context entry were stored by its tool step.
    pub(super) recorded: bool,
    /// Sent before this call's text (a blank line after an earlier step's
    /// text): part of `done.content`, not of this call's context entry.
    pub(super) lead: &'static str,
    /// The vendor compacted the context and paused before answering.
    pub(super) paused: bool,
    /// The vendor's per-iteration usage (a call in which it compacted).
    pub(super) iterations: Option<serde_json::Value>,
}

impl ModelOutcome {
    fn empty() -> Self {
        Self {
            content: String::new(),
            tool_calls: Vec::new(),
            input_tokens: None,
            output_tokens: None,
            cache_read_tokens: None,
            cache_write_tokens: None,
            failure: None,
            stopped_by: None,
            first_text: None,
            reasoning: Vec::new(),
            compaction: None,
            accepted: false,
            estimated_input: 0,
            key_source: PLATFORM_KEY.to_owned(),
            recorded: false,
            lead: "",
            paused: false,
            iterations: None,
        }
    }

    /// A turn stopped before its model call was made.
    pub(super) fn stopped_before_the_call(reason: CancelReason) -> Self {
        Self {
            stopped_by: Some(reason),
            ..Self::empty()
        }
    }

    /// The end of a turn whose last step's server-side calls ran and whose
    /// client-side `calls` wait for the client (the step's text and calls
    /// are already in the context).
    pub(super) fn asking_client(calls: Vec<ToolCall>) -> Self {
        Self {
            tool_calls: calls,
            recorded: true,
            ..Self::empty()
        }
    }
}

/// Adds a streamed piece to the reasoning block at its index.
fn add_reasoning(
    blocks: &mut BTreeMap<usize, ReasoningBlock>,
    index: usize,
    piece: ReasoningPiece,
) {
    let block = blocks.entry(index).or_insert_with(|| match &piece {
        ReasoningPiece::Redacted(_) => ReasoningBlock::RedactedThinking {
            data: String::new(),
        },
        _ => ReasoningBlock::Thinking {
            thinking: String::new(),
            signature: String::new(),
        },
    });
    match (block, piece) {
        (ReasoningBlock::Thinking { thinking, .. }, ReasoningPiece::Thinking(text)) => {
            thinking.push_str(&text);
        }
        (ReasoningBlock::Thinking { signature, .. }, ReasoningPiece::Signature(text)) => {
            signature.push_str(&text);
        }
        (ReasoningBlock::RedactedThinking { data }, ReasoningPiece::Redacted(text)) => {
            data.push_str(&text);
        }
        // A piece that does not fit its block's kind is a vendor error;
        // the block keeps what it had.
        _ => {}
    }
}

/// Reads the model stream to its end, relaying text as `token` events and
/// assembling tool calls; a stop drops the stream at once.
async fn consume(
    mut stream: crate::provider::ModelStream,
    emitter: &Emitter,
    cancel: &mut oneshot::Receiver<CancelReason>,
    mut joiner: Option<&'static str>,
) -> ModelOutcome {
    let mut outcome = ModelOutcome::empty();
    let mut reasoning: BTreeMap<usize, ReasoningBlock> = BTreeMap::new();
    let mut calls: BTreeMap<usize, PartialCall> = BTreeMap::new();
    loop {
        tokio::select! {
            biased;
            // A dropped sender is not a stop: the answer goes on.
            Ok(reason) = &mut *cancel, if !cancel.is_terminated() => {
                outcome.stopped_by = Some(reason);
                break;
            }
            event = stream.next() => {
                // Any answer but an error before one means the vendor took
                // the request.
                outcome.accepted |= !matches!(event, Some(ModelEvent::Error(_)) | None);
                match event {
                Some(ModelEvent::Accepted) => {}
                Some(ModelEvent::Text(delta)) => {
                    outcome.first_text.get_or_insert_with(Instant::now);
                    if let Some(joiner) = joiner.take() {
                        outcome.lead = joiner;
                        emitter.emit(ThreadEvent::Token { delta: joiner.to_owned() });
                    }
                    outcome.content.push_str(&delta);
                    emitter.emit(ThreadEvent::Token { delta });
                }
                Some(ModelEvent::ToolCallStart { index, id, name }) => {
                    let call = calls.entry(index).or_default();
                    call.id = id;
                    call.name = name;
                }
                Some(ModelEvent::Reasoning { index, piece }) => {
                    add_reasoning(&mut reasoning, index, piece);
                }
                Some(ModelEvent::Iterations(iterations)) => {
                    outcome.iterations = Some(iterations);
                }
                Some(ModelEvent::Compaction(mut block)) => {
                    block.at.get_or_insert_with(chrono::Utc::now);
                    emitter.emit(ThreadEvent::Compaction {
                        method: "native",
                        summary: Some(block.summary.clone()),
                        input_tokens_before: None,
                    });
                    outcome.compaction = Some(block);
                }
                Some(ModelEvent::ToolCallArguments { index, fragment }) => {
                    calls.entry(index).or_default().arguments.push_str(&fragment);
                }
                Some(ModelEvent::Usage {
                    input_tokens,
                    output_tokens,
                    cache_read_tokens,
                    cache_write_tokens,
                }) => {
                    outcome.input_tokens = input_tokens.or(outcome.input_tokens);
                    outcome.output_tokens = output_tokens.or(outcome.output_tokens);
                    outcome.cache_read_tokens = cache_read_tokens.or(outcome.cache_read_tokens);
                    outcome.cache_write_tokens =
                        cache_write_tokens.or(outcome.cache_write_tokens);
                }
                Some(ModelEvent::Finish(reason)) => {
                    outcome.paused = reason == FinishReason::Compaction;
                    outcome.tool_calls = calls.into_values().map(PartialCall::finish).collect();
                    outcome.reasoning = std::mem::take(&mut reasoning).into_values().collect();
                    break;
                }
                Some(ModelEvent::Error(error)) => {
                    outcome.failure = Some(error);
                    break;
                }
                None => {
                    outcome.failure = Some(ModelError {
                        code: codes::PROVIDER_UNAVAILABLE,
                        detail: "the model's stream ended before the answer was complete".into(),
                    });
                    break;
                }
            }
            }
        }
    }
    // Dropping the stream cancels the model call (closes a vendor connection).
    drop(stream);
    outcome
}
