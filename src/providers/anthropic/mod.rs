//! Vendor A: the Anthropic Messages API, streaming.
//!
//! Request: `POST {base}/v1/messages` with `x-api-key` and
//! `anthropic-version: 2023-06-01`; the system prompt top-level as blocks,
//! with prompt-cache breakpoints (`cache`); tool calls as
//! assistant `tool_use` blocks and results as user `tool_result` blocks (first
//! in their user message, before any text); consecutive same-role entries are
//! merged into one message. Stream: `message_start` (input usage),
//! `content_block_start/delta/stop` (text, `tool_use` with `input_json_delta`,
//! `thinking` with `thinking_delta` and `signature_delta`, `redacted_thinking`
//! whole, `compaction` with one `compaction_delta`; unknown blocks skipped),
//! `message_delta` (stop reason, usage,
//! cumulative), `message_stop`, `ping`, and `error` even after HTTP 200.
//! Building the request is here; reading the stream is `parser`.

use std::sync::Arc;

use confer_actors::provider::{summary_message, view_for};
use confer_actors::{
    ContextRole, ModelProvider, ModelRequest, ModelRoute, ModelStream, ReasoningBlock, VendorKey,
};
use serde_json::{Value, json};

use super::retry::RetryPolicy;
use super::vendor::{RequestFactory, vendor_stream};

mod cache;
mod parser;

pub use self::parser::MessagesParser;

/// The API version header every request carries.
pub const API_VERSION: &str = "2023-06-01";
/// The beta that native compaction needs (`vendor-protocols.md` §1b).
pub const COMPACTION_BETA: &str = "compact-2026-01-12";

/// The Anthropic provider.
pub struct AnthropicProvider {
    pub client: super::client::VendorClient,
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
    let options = &request.options.anthropic;
    let mut body = json!({
        "model": request.route.model,
        "max_tokens": max_tokens,
        "stream": true,
        "messages": messages,
    });
    // Extended thinking: the budget counts against max_tokens, which must
    // stay above it, leaving the answer its usual room.
    if let Some(budget) = options.thinking_budget {
        body["thinking"] = json!({"type": "enabled", "budget_tokens": budget});
        if max_tokens <= budget {
            body["max_tokens"] = json!(budget.saturating_add(max_tokens));
        }
    }
    // Another model's compaction (or Confer's summary) follows the system
    // prompt; the Messages API has no system messages, so it joins the prompt.
    let system = match view.summary {
        Some(summary) if request.system.is_empty() => summary_message(summary),
        Some(summary) => format!("{}\n\n{}", request.system, summary_message(summary)),
        None => request.system.clone(),
    };
    // The preamble first, as a block of its own: the cacheable part.
    let system = cache::system_blocks(&system, request.system_stable_len, &options.cache);
    if !system.is_empty() {
        body["system"] = Value::Array(system);
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
    cache::mark_breakpoints(&mut body, &options.cache);
    body
}

impl ModelProvider for AnthropicProvider {
    fn route(&self, model: &str) -> ModelRoute {
        super::route(model, super::ANTHROPIC)
    }

    fn stream(&self, request: ModelRequest) -> ModelStream {
        let url = format!("{}/v1/messages", self.base_url.trim_end_matches('/'));
        let max_tokens = request
            .options
            .max_output_tokens
            .map_or(self.max_tokens, |cap| cap.min(self.max_tokens));
        let body = request_body(&request, max_tokens);
        let compacting = request.compaction.is_some();
        let key = request.api_key.or_else(|| self.platform_key.clone());
        let client = self.client.clone();
        let factory: RequestFactory = Arc::new(move || {
            let mut builder = client
                .get()
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
        vendor_stream(self.retry.clone(), factory, None, MessagesParser::default())
    }
}

#[cfg(test)]
mod tests;
