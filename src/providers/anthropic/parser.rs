//! Reading a Messages stream: its events to [`ModelEvent`]s (see the
//! module above for the wire's shape).

use std::borrow::Cow;
use std::collections::{BTreeSet, VecDeque};

use confer_actors::codes::{self, ErrorCode};
use confer_actors::{CompactionBlock, FinishReason, ModelError, ModelEvent, ReasoningPiece};
use serde::Deserialize;
use serde_json::Value;

use crate::providers::sse_decoder::WireEvent;
use crate::providers::vendor::{WireParser, malformed, string_or_absent, truncated};

/// Token counts of a `usage` object (`message_start`'s, or the cumulative
/// one of `message_delta`). Input counts every prompt token the vendor
/// counted: `input_tokens` plus the cache reads and writes, which are also
/// reported apart. With `iterations` (a compaction ran in the call) each
/// figure is the sum over them (`compaction.md`): the top-level figures
/// leave the compaction's own iteration out.
fn usage_of(usage: &Value) -> Vec<ModelEvent> {
    const READ: &str = "cache_read_input_tokens";
    const WRITE: &str = "cache_creation_input_tokens";
    let Some(iterations) = usage["iterations"].as_array().filter(|i| !i.is_empty()) else {
        let (read, write) = (usage[READ].as_u64(), usage[WRITE].as_u64());
        return vec![ModelEvent::Usage {
            input_tokens: usage["input_tokens"]
                .as_u64()
                .map(|input| input + read.unwrap_or(0) + write.unwrap_or(0)),
            output_tokens: usage["output_tokens"].as_u64(),
            cache_read_tokens: read,
            cache_write_tokens: write,
        }];
    };
    let sum = |fields: &[&str]| -> u64 {
        iterations
            .iter()
            .flat_map(|i| fields.iter().map(move |f| i[*f].as_u64().unwrap_or(0)))
            .sum()
    };
    vec![
        ModelEvent::Iterations(usage["iterations"].clone()),
        ModelEvent::Usage {
            input_tokens: Some(sum(&["input_tokens", READ, WRITE])),
            output_tokens: Some(sum(&["output_tokens"])),
            cache_read_tokens: Some(sum(&[READ])),
            cache_write_tokens: Some(sum(&[WRITE])),
        },
    ]
}

/// Parses Messages stream events.
#[derive(Default)]
pub struct MessagesParser {
    /// Indexes of content blocks that are tool calls.
    tool_blocks: BTreeSet<usize>,
    stop_reason: Option<String>,
    done: bool,
}

fn error_code(kind: &str) -> ErrorCode {
    match kind {
        "overloaded_error" | "api_error" => codes::PROVIDER_UNAVAILABLE,
        "rate_limit_error" => codes::PROVIDER_RATE_LIMITED,
        "authentication_error" | "permission_error" => codes::PROVIDER_AUTH,
        "timeout_error" => codes::PROVIDER_TIMEOUT,
        _ => codes::MODEL_ERROR,
    }
}

/// Whether an event's known fields have their types: an object whose
/// `type` is a string, and a known delta's text a string (`text_delta`'s
/// `text`, `input_json_delta`'s `partial_json`, `thinking_delta`'s
/// `thinking`, `signature_delta`'s `signature`). Unknown event and delta
/// types and extra fields are not looked at.
fn well_formed(data: &Value) -> bool {
    if !data.is_object() || !string_or_absent(&data["type"]) {
        return false;
    }
    let delta = &data["delta"];
    let field = match delta["type"].as_str() {
        Some("text_delta") => "text",
        Some("input_json_delta") => "partial_json",
        Some("thinking_delta") => "thinking",
        Some("signature_delta") => "signature",
        _ => return true,
    };
    data["type"] != "content_block_delta" || delta[field].is_string()
}

/// The event that makes up most of a stream, a text delta, read into
/// borrowed fields instead of a `serde_json::Value` per token. Any other
/// event, or one of these that does not fit, goes the general way (and is
/// checked there).
#[derive(Deserialize)]
struct TextDeltaEvent<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    delta: TextDelta<'a>,
}

#[derive(Deserialize)]
struct TextDelta<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    text: Cow<'a, str>,
}

/// The text of a well-formed `content_block_delta` / `text_delta` event.
/// Other deltas (tool arguments, thinking: also one per token) are left at
/// a substring scan, so that they are not parsed twice.
fn text_delta<'a>(event: &WireEvent<'a>) -> Option<Cow<'a, str>> {
    if event.event != "content_block_delta"
        || !event.data.starts_with('{')
        || !event.data.contains("\"text_delta\"")
    {
        return None;
    }
    let parsed: TextDeltaEvent<'_> = serde_json::from_str(event.data).ok()?;
    (parsed.kind == "content_block_delta" && parsed.delta.kind == "text_delta")
        .then_some(parsed.delta.text)
}

impl WireParser for MessagesParser {
    fn on_event(&mut self, event: &WireEvent<'_>, out: &mut VecDeque<ModelEvent>) {
        // An event without data (a keep-alive); comments never get here.
        if event.data.trim().is_empty() {
            return;
        }
        // The token path: a text delta is pushed straight on.
        if let Some(text) = text_delta(event) {
            if !text.is_empty() {
                out.push_back(ModelEvent::Text(text.into_owned()));
            }
            return;
        }
        out.extend(self.structured(event));
    }

    fn on_end(&mut self, out: &mut VecDeque<ModelEvent>) {
        if self.done {
            return;
        }
        self.done = true;
        out.push_back(truncated());
    }

    fn finished(&self) -> bool {
        self.done
    }
}

impl MessagesParser {
    /// The model events of any event but a well-formed text delta.
    fn structured(&mut self, event: &WireEvent<'_>) -> Vec<ModelEvent> {
        let data = match serde_json::from_str::<Value>(event.data) {
            Ok(data) if well_formed(&data) => data,
            _ => {
                self.done = true;
                return vec![malformed()];
            }
        };
        let kind = data["type"].as_str().unwrap_or(event.event);
        let index = data["index"].as_u64().unwrap_or(0) as usize;
        match kind {
            "message_start" => usage_of(&data["message"]["usage"]),
            "content_block_start" if data["content_block"]["type"] == "thinking" => {
                let block = &data["content_block"];
                [
                    (
                        "thinking",
                        ReasoningPiece::Thinking as fn(String) -> ReasoningPiece,
                    ),
                    ("signature", ReasoningPiece::Signature),
                ]
                .into_iter()
                .filter_map(|(field, piece)| {
                    let text = block[field].as_str().filter(|t| !t.is_empty())?;
                    Some(ModelEvent::Reasoning {
                        index,
                        piece: piece(text.to_owned()),
                    })
                })
                .collect()
            }
            "content_block_start" if data["content_block"]["type"] == "redacted_thinking" => {
                vec![ModelEvent::Reasoning {
                    index,
                    piece: ReasoningPiece::Redacted(
                        data["content_block"]["data"]
                            .as_str()
                            .unwrap_or_default()
                            .to_owned(),
                    ),
                }]
            }
            "content_block_start" if data["content_block"]["type"] == "tool_use" => {
                self.tool_blocks.insert(index);
                let block = &data["content_block"];
                vec![ModelEvent::ToolCallStart {
                    index,
                    id: block["id"].as_str().unwrap_or_default().to_owned(),
                    name: block["name"].as_str().unwrap_or_default().to_owned(),
                }]
            }
            "content_block_delta" => {
                let delta = &data["delta"];
                match delta["type"].as_str() {
                    Some("text_delta") => delta["text"]
                        .as_str()
                        .filter(|t| !t.is_empty())
                        .map(|t| ModelEvent::Text(t.to_owned()))
                        .into_iter()
                        .collect(),
                    Some("input_json_delta") if self.tool_blocks.contains(&index) => {
                        delta["partial_json"]
                            .as_str()
                            .filter(|t| !t.is_empty())
                            .map(|t| ModelEvent::ToolCallArguments {
                                index,
                                fragment: t.to_owned(),
                            })
                            .into_iter()
                            .collect()
                    }
                    Some("thinking_delta") => vec![ModelEvent::Reasoning {
                        index,
                        piece: ReasoningPiece::Thinking(
                            delta["thinking"].as_str().unwrap_or_default().to_owned(),
                        ),
                    }],
                    Some("signature_delta") => vec![ModelEvent::Reasoning {
                        index,
                        piece: ReasoningPiece::Signature(
                            delta["signature"].as_str().unwrap_or_default().to_owned(),
                        ),
                    }],
                    // The whole block in one delta; without content the
                    // compaction failed, and such a block is not kept.
                    Some("compaction_delta") => delta["content"]
                        .as_str()
                        .filter(|summary| !summary.is_empty())
                        .map(|summary| {
                            ModelEvent::Compaction(CompactionBlock {
                                summary: summary.to_owned(),
                                encrypted_content: delta["encrypted_content"]
                                    .as_str()
                                    .map(str::to_owned),
                                native_to: Some(crate::providers::ANTHROPIC.to_owned()),
                                at: None,
                                kept_from: None,
                            })
                        })
                        .into_iter()
                        .collect(),
                    // citations and future delta types.
                    _ => Vec::new(),
                }
            }
            "message_delta" => {
                if let Some(reason) = data["delta"]["stop_reason"].as_str() {
                    self.stop_reason = Some(reason.to_owned());
                }
                usage_of(&data["usage"])
            }
            "message_stop" => {
                self.done = true;
                let reason = match self.stop_reason.as_deref() {
                    Some("end_turn" | "stop_sequence") | None => FinishReason::Stop,
                    Some("max_tokens") => FinishReason::Length,
                    Some("tool_use") => FinishReason::ToolCalls,
                    Some("compaction") => FinishReason::Compaction,
                    Some(other) => FinishReason::Other(other.to_owned()),
                };
                vec![ModelEvent::Finish(reason)]
            }
            "error" => {
                self.done = true;
                let error = &data["error"];
                let kind = error["type"].as_str().unwrap_or_default();
                let message = error["message"]
                    .as_str()
                    .unwrap_or("the vendor reported an error");
                let detail = format!("{kind}: {}", message.chars().take(300).collect::<String>());
                vec![ModelEvent::Error(ModelError {
                    // Overloaded or down after accepting the request: another
                    // model may answer (if nothing of this answer was sent).
                    replaceable: matches!(
                        kind,
                        "overloaded_error" | "api_error" | "rate_limit_error"
                    ),
                    ..ModelError::new(error_code(kind), detail)
                })]
            }
            // ping, content_block_stop, other blocks' starts, unknown events.
            _ => Vec::new(),
        }
    }
}
