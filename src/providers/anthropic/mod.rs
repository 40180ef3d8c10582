//! Vendor A: the Anthropic Messages API, streaming.
//!
//! Request: `POST {base}/v1/messages` with `x-api-key` and
//! `anthropic-version: 2023-06-01`; the system prompt top-level; tool calls as
//! assistant `tool_use` blocks and results as user `tool_result` blocks (first
//! in their user message, before any text); consecutive same-role entries are
//! merged into one message. Stream: `message_start` (input usage),
//! `content_block_start/delta/stop` (text, `tool_use` with `input_json_delta`,
//! `thinking` with `thinking_delta` and `signature_delta`, `redacted_thinking`
//! whole, `compaction` with one `compaction_delta`; unknown blocks skipped), `message_delta` (stop reason, usage,
//! cumulative), `message_stop`, `ping`, and `error` even after HTTP 200.

use std::collections::BTreeSet;
use std::sync::Arc;

use confer_actors::codes::{self, ErrorCode};
use confer_actors::provider::{summary_message, view_for};
use confer_actors::{
    CompactionBlock, ContextRole, FinishReason, ModelError, ModelEvent, ModelProvider,
    ModelRequest, ModelRoute, ModelStream, ReasoningBlock, ReasoningPiece, VendorKey,
};
use eventsource_stream::Event;
use serde_json::{Value, json};

use super::vendor::{RequestFactory, RetryPolicy, WireParser, truncated, vendor_stream};

/// The API version header every request carries.
pub const API_VERSION: &str = "2023-06-01";
/// The beta that native compaction needs (`vendor-protocols.md` §1b).
pub const COMPACTION_BETA: &str = "compact-2026-01-12";

/// The Anthropic provider.
pub struct AnthropicProvider {
    pub client: reqwest::Client,
    /// e.g. `https://api.anthropic.com` (a path prefix is kept).
    pub base_url: String,
    pub platform_key: Option<VendorKey>,
    pub max_tokens: u32,
    pub retry: RetryPolicy,
}

fn push_blocks(messages: &mut Vec<Value>, role: &str, blocks: Vec<Value>) {
    if blocks.is_empty() {
        return;
    }
    match messages.last_mut() {
        Some(last) if last["role"] == role => {
            if let Some(content) = last["content"].as_array_mut() {
                content.extend(blocks);
            }
        }
        _ => messages.push(json!({"role": role, "content": blocks})),
    }
}

/// The JSON body of a streamed Messages request.
pub fn request_body(request: &ModelRequest, max_tokens: u32) -> Value {
    let view = view_for(&request.messages, super::ANTHROPIC);
    let mut messages: Vec<Value> = Vec::new();
    for message in view.entries() {
        match message.role {
            ContextRole::User => {
                let text = (!message.content.is_empty())
                    .then(|| json!({"type": "text", "text": message.content}));
                push_blocks(&mut messages, "user", text.into_iter().collect());
            }
            ContextRole::Tool => {
                let result = json!({
                    "type": "tool_result",
                    "tool_use_id": message.tool_call_id,
                    "content": message.content,
                });
                // tool_result blocks come first in their user message.
                match messages.last_mut() {
                    Some(last) if last["role"] == "user" => {
                        if let Some(content) = last["content"].as_array_mut() {
                            let at = content
                                .iter()
                                .position(|b| b["type"] != "tool_result")
                                .unwrap_or(content.len());
                            content.insert(at, result);
                        }
                    }
                    _ => messages.push(json!({"role": "user", "content": [result]})),
                }
            }
            ContextRole::Assistant => {
                let mut blocks = Vec::new();
                // Our own compaction block goes back first, unchanged; the
                // vendor then ignores everything before it.
                if let Some(block) = message
                    .compaction
                    .as_ref()
                    .filter(|b| b.native_to.as_deref() == Some(super::ANTHROPIC))
                {
                    blocks.push(json!({
                        "type": "compaction",
                        "content": block.summary,
                        "encrypted_content": block.encrypted_content,
                    }));
                }
                // Thinking goes back first and unchanged, signature and all,
                // and only to the vendor that made it.
                if message.reasoning_from.as_deref() == Some(super::ANTHROPIC) {
                    blocks.extend(message.reasoning.iter().map(|block| match block {
                        ReasoningBlock::Thinking {
                            thinking,
                            signature,
                        } => json!({"type": "thinking", "thinking": thinking, "signature": signature}),
                        ReasoningBlock::RedactedThinking { data } => {
                            json!({"type": "redacted_thinking", "data": data})
                        }
                    }));
                }
                if !message.content.is_empty() {
                    blocks.push(json!({"type": "text", "text": message.content}));
                }
                for call in &message.tool_calls {
                    let input = if call.arguments.is_object() {
                        call.arguments.clone()
                    } else {
                        json!({})
                    };
                    blocks.push(json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input}));
                }
                push_blocks(&mut messages, "assistant", blocks);
            }
        }
    }
    let mut body = json!({
        "model": request.route.model,
        "max_tokens": max_tokens,
        "stream": true,
        "messages": messages,
    });
    // Another model's compaction (or Confer's summary) follows the system
    // prompt; the Messages API has no system messages, so it joins the prompt.
    let system = match view.summary {
        Some(summary) if request.system.is_empty() => summary_message(summary),
        Some(summary) => format!("{}\n\n{}", request.system, summary_message(summary)),
        None => request.system.clone(),
    };
    if !system.is_empty() {
        body["system"] = json!(system);
    }
    if request.tool_choice_none && !request.tools.is_empty() {
        body["tool_choice"] = json!({"type": "none"});
    }
    // The agent's compaction, done by the vendor (`compaction.md`).
    if let Some(config) = &request.compaction {
        let mut edit = json!({
            "type": "compact_20260112",
            "trigger": {"type": "input_tokens", "value": config.vendor_a_trigger_tokens},
            "pause_after_compaction": config.vendor_a_pause_after,
        });
        if let Some(instructions) = &config.vendor_a_instructions {
            edit["instructions"] = json!(instructions);
        }
        body["context_management"] = json!({"edits": [edit]});
    }
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|tool| {
                let mut definition = json!({"name": tool.name, "input_schema": tool.parameters});
                if let Some(description) = &tool.description {
                    definition["description"] = json!(description);
                }
                definition
            })
            .collect();
    }
    body
}

/// Token counts of a `usage` object. With `iterations` (a compaction ran
/// in the call) each figure is the sum over them, input counting the cache
/// reads and writes too (`compaction.md`): the top-level figures leave the
/// compaction's own iteration out.
fn usage_of(usage: &Value) -> Vec<ModelEvent> {
    let Some(iterations) = usage["iterations"].as_array().filter(|i| !i.is_empty()) else {
        return vec![ModelEvent::Usage {
            input_tokens: usage["input_tokens"].as_u64(),
            output_tokens: usage["output_tokens"].as_u64(),
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
            input_tokens: Some(sum(&[
                "input_tokens",
                "cache_read_input_tokens",
                "cache_creation_input_tokens",
            ])),
            output_tokens: Some(sum(&["output_tokens"])),
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

impl WireParser for MessagesParser {
    fn on_event(&mut self, event: &Event) -> Vec<ModelEvent> {
        let Ok(data) = serde_json::from_str::<Value>(&event.data) else {
            return Vec::new();
        };
        let kind = data["type"].as_str().unwrap_or(event.event.as_str());
        let index = data["index"].as_u64().unwrap_or(0) as usize;
        match kind {
            "message_start" => {
                let usage = &data["message"]["usage"];
                vec![ModelEvent::Usage {
                    input_tokens: usage["input_tokens"].as_u64(),
                    output_tokens: usage["output_tokens"].as_u64(),
                }]
            }
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
                                native_to: Some(super::ANTHROPIC.to_owned()),
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
                vec![ModelEvent::Error(ModelError {
                    code: error_code(kind),
                    detail: format!("{kind}: {}", message.chars().take(300).collect::<String>()),
                })]
            }
            // ping, content_block_stop, other blocks' starts, unknown events.
            _ => Vec::new(),
        }
    }

    fn on_end(&mut self) -> Vec<ModelEvent> {
        if self.done {
            return Vec::new();
        }
        self.done = true;
        vec![truncated()]
    }

    fn finished(&self) -> bool {
        self.done
    }
}

impl ModelProvider for AnthropicProvider {
    fn route(&self, model: &str) -> ModelRoute {
        super::route(model, super::ANTHROPIC)
    }

    fn stream(&self, request: ModelRequest) -> ModelStream {
        let url = format!("{}/v1/messages", self.base_url.trim_end_matches('/'));
        let body = request_body(&request, self.max_tokens);
        let compacting = request.compaction.is_some();
        let key = request.api_key.or_else(|| self.platform_key.clone());
        let client = self.client.clone();
        let factory: RequestFactory = Arc::new(move || {
            let mut builder = client
                .post(&url)
                .header("anthropic-version", API_VERSION)
                .header("accept", "text/event-stream")
                .json(&body);
            if compacting {
                builder = builder.header("anthropic-beta", COMPACTION_BETA);
            }
            match &key {
                Some(key) => builder.header("x-api-key", key.expose()),
                None => builder,
            }
        });
        vendor_stream(self.retry.clone(), factory, MessagesParser::default())
    }
}

#[cfg(test)]
mod tests;
