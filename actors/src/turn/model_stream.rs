//! Reading a model call's stream: text relayed as `token` events (and
//! thinking as `thinking` events when the send asked), tool calls and
//! reasoning blocks assembled, usage kept; a stop drops the stream at once.

use std::collections::BTreeMap;
use std::time::Instant;

use futures_util::StreamExt;
use serde_json::Value;
use tokio::sync::oneshot;

use super::{CancelReason, Emitter, ModelOutcome};
use crate::codes;
use crate::events::ThreadEvent;
use crate::provider::{
    FinishReason, ModelError, ModelEvent, ReasoningBlock, ReasoningPiece, ToolCall,
};

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

/// Where a model call's text goes.
pub(super) struct Relay<'a> {
    pub(super) emitter: &'a Emitter,
    /// Sent before the call's first text (a blank line after an earlier
    /// step's text).
    pub(super) joiner: Option<&'static str>,
    /// Whether thinking text is relayed as `thinking` events.
    pub(super) thinking: bool,
    /// The turn's knowledge sources, when its answer may cite them.
    pub(super) sources: Option<&'a crate::citations::TurnSources>,
}

/// Reads the model stream to its end, relaying text as `token` events and
/// assembling tool calls; a stop drops the stream at once.
pub(super) async fn consume(
    mut stream: crate::provider::ModelStream,
    relay: Relay<'_>,
    cancel: &mut oneshot::Receiver<CancelReason>,
) -> ModelOutcome {
    let Relay {
        emitter,
        mut joiner,
        thinking,
        sources,
    } = relay;
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
                outcome.began |= matches!(
                    event,
                    Some(
                        ModelEvent::Text(_)
                            | ModelEvent::ToolCallStart { .. }
                            | ModelEvent::Reasoning { .. }
                            | ModelEvent::Compaction(_)
                    )
                );
                match event {
                Some(ModelEvent::Accepted) => {}
                Some(ModelEvent::Text(delta)) => {
                    outcome.first_text.get_or_insert_with(Instant::now);
                    if let Some(joiner) = joiner.take() {
                        outcome.lead = joiner;
                        emitter.emit(ThreadEvent::Token { delta: joiner.to_owned() });
                    }
                    outcome.content.push_str(&delta);
                    // Only a token with a `]` may complete a marker.
                    let cites = sources.filter(|_| delta.contains(']'));
                    let token_len = delta.len();
                    emitter.emit(ThreadEvent::Token { delta });
                    if let Some(sources) = cites {
                        for citation in sources.citations_completed(&outcome.content, token_len) {
                            emitter.emit(ThreadEvent::Citation(Box::new(citation)));
                        }
                    }
                }
                Some(ModelEvent::ToolCallStart { index, id, name }) => {
                    let call = calls.entry(index).or_default();
                    call.id = id;
                    call.name = name;
                }
                Some(ModelEvent::Reasoning { index, piece }) => {
                    if let (true, ReasoningPiece::Thinking(delta)) = (thinking, &piece) {
                        emitter.emit(ThreadEvent::Thinking { delta: delta.clone() });
                    }
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
                    outcome.failure = Some(ModelError::new(
                        codes::PROVIDER_UNAVAILABLE,
                        "the model's stream ended before the answer was complete",
                    ));
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
