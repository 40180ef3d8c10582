//! Vendor B: the OpenAI Chat Completions API, and any OpenAI-compatible server
//! (vLLM, Ollama, llama.cpp, LiteLLM) behind `OPENAI_BASE_URL`.
//!
//! Request: the composed system prompt as the first `system` message (left out
//! when empty), then the summary of the newest compaction as a second one
//! (the entries before it left out), every message's content as a plain string, assistant tool calls
//! with their arguments as JSON text, one `tool` message per result,
//! `stream: true` with `stream_options.include_usage`. Stream: `data:` chunks
//! ending with `data: [DONE]`; text in `delta.content`, tool calls assembled
//! by `index` (a whole call in one chunk is fine too), usage in a last chunk
//! with no choices. A server that sends no usage, no role chunk or no `[DONE]`
//! still works; a body that ends before any finish reason is truncated.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::Arc;

use confer_actors::provider::{summary_message, view_for};
use confer_actors::{
    ContextRole, FinishReason, ModelError, ModelEvent, ModelProvider, ModelRequest, ModelRoute,
    ModelStream, ToolCall, VendorKey,
};
use serde::Deserialize;
use serde_json::{Value, json};

mod cache;

use super::retry::{FieldCheck, RetryPolicy};
use super::sse_decoder::WireEvent;
use super::vendor::{RequestFactory, WireParser, malformed, truncated, vendor_stream};

/// The OpenAI-compatible provider.
pub struct OpenAiProvider {
    pub client: super::client::VendorClient,
    /// e.g. `https://api.openai.com/v1` (no trailing slash needed).
    pub base_url: String,
    pub platform_key: Option<VendorKey>,
    pub retry: RetryPolicy,
    /// Whether the server refused `prompt_cache_key` / `safety_identifier`.
    pub refused: cache::RefusedFields,
}

/// The JSON body of a streamed chat completion.
pub fn request_body(request: &ModelRequest) -> Value {
    let view = view_for(&request.messages, super::OPENAI);
    let mut messages = Vec::new();
    if !request.system.is_empty() {
        messages.push(json!({"role": "system", "content": request.system}));
    }
    // A compaction's summary stands for the entries before it.
    if let Some(summary) = view.summary {
        messages.push(json!({"role": "system", "content": summary_message(summary)}));
    }
    for message in view.entries() {
        messages.push(match message.role {
            ContextRole::User => json!({"role": "user", "content": message.content}),
            ContextRole::Assistant if message.tool_calls.is_empty() => {
                json!({"role": "assistant", "content": message.content})
            }
            ContextRole::Assistant => {
                let calls: Vec<Value> = message
                    .tool_calls
                    .iter()
                    .map(|call| {
                        json!({"id": call.id, "type": "function", "function": {
                            "name": call.name,
                            "arguments": arguments_text(call),
                        }})
                    })
                    .collect();
                let content = (!message.content.is_empty()).then_some(&message.content);
                json!({"role": "assistant", "content": content, "tool_calls": calls})
            }
            ContextRole::Tool => json!({
                "role": "tool",
                "tool_call_id": message.tool_call_id,
                "content": message.content,
            }),
        });
    }
    let mut body = json!({
        "model": request.route.model,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if request.tool_choice_none && !request.tools.is_empty() {
        body["tool_choice"] = json!("none");
    }
    if let Some(cap) = request.options.max_output_tokens {
        body["max_completion_tokens"] = json!(cap);
    }
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|tool| {
                json!({"type": "function", "function": {
                    "name": tool.name,
                    "description": tool.description.clone().unwrap_or_default(),
                    "parameters": tool.parameters,
                }})
            })
            .collect();
    }
    body
}

/// Parses Chat Completions chunks.
#[derive(Default)]
pub struct ChatParser {
    finish: Option<FinishReason>,
    /// Tool-call indexes already announced with their ID and name.
    started: Vec<usize>,
    done: bool,
}

/// A call's arguments as JSON text; the model's own text, unchanged, when
/// it did not parse (encoding it again would send a JSON string of it).
fn arguments_text(call: &ToolCall) -> String {
    match (&call.arguments_error, &call.arguments) {
        (Some(_), Value::String(raw)) => raw.clone(),
        (_, arguments) => arguments.to_string(),
    }
}

/// One streamed chunk, borrowed from the event's text where it can be
/// (no `serde_json::Value` per token). Typed fields check the chunk's shape:
/// an object whose `choices` is a list, each delta's `content` a string, its
/// `tool_calls` a list, its `finish_reason` a string (any of them may be
/// absent or null); a chunk that does not fit is malformed. Unknown fields
/// are skipped unread.
#[derive(Deserialize)]
struct Chunk<'a> {
    #[serde(default, borrow)]
    choices: Option<FirstChoice<'a>>,
    #[serde(default)]
    usage: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
}

/// A chunk's `choices`: the first is kept, the others checked and dropped
/// (Confer asks for one; a list of its own per token would be an
/// allocation on the token path).
struct FirstChoice<'a>(Option<Choice<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for FirstChoice<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<Choice<'a>>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visit<'a> {
            type Value = FirstChoice<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a list of choices")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let first = seq.next_element::<Choice<'a>>()?;
                while seq.next_element::<Choice<'a>>()?.is_some() {}
                Ok(FirstChoice(first))
            }
        }
        deserializer.deserialize_seq(Visit(std::marker::PhantomData))
    }
}

#[derive(Deserialize)]
struct Choice<'a> {
    #[serde(default, borrow)]
    delta: Option<Delta<'a>>,
    #[serde(default, borrow)]
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(Default, Deserialize)]
struct Delta<'a> {
    #[serde(default, borrow)]
    content: Option<Cow<'a, str>>,
    #[serde(default)]
    tool_calls: Option<Vec<Value>>,
}

impl ChatParser {
    fn chunk(&mut self, chunk: Chunk<'_>, out: &mut VecDeque<ModelEvent>) {
        if let Some(error) = chunk.error.filter(|e| !e.is_null()) {
            let message = error["message"]
                .as_str()
                .unwrap_or("the vendor reported an error");
            self.done = true;
            out.push_back(ModelEvent::Error(ModelError::model(
                message.chars().take(300).collect::<String>(),
            )));
            return;
        }
        if let Some(choice) = chunk.choices.and_then(|c| c.0) {
            let delta = choice.delta.unwrap_or_default();
            if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
                out.push_back(ModelEvent::Text(text.into_owned()));
            }
            for (position, call) in delta.tool_calls.iter().flatten().enumerate() {
                let index = call["index"].as_u64().map_or(position, |i| i as usize);
                if !self.started.contains(&index) {
                    self.started.push(index);
                    let id = call["id"]
                        .as_str()
                        .map_or_else(|| format!("call_{index}"), str::to_owned);
                    let name = call["function"]["name"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned();
                    out.push_back(ModelEvent::ToolCallStart { index, id, name });
                }
                let fragment = &call["function"]["arguments"];
                let fragment = match fragment {
                    Value::String(text) => text.clone(),
                    Value::Null => String::new(),
                    // Some servers send the arguments as an object.
                    other => other.to_string(),
                };
                if !fragment.is_empty() {
                    out.push_back(ModelEvent::ToolCallArguments { index, fragment });
                }
            }
            if let Some(reason) = choice.finish_reason {
                self.finish = Some(match reason.as_ref() {
                    "stop" => FinishReason::Stop,
                    "length" => FinishReason::Length,
                    "tool_calls" | "function_call" => FinishReason::ToolCalls,
                    other => FinishReason::Other(other.to_owned()),
                });
            }
        }
        if let Some(usage) = chunk.usage.filter(Value::is_object) {
            // `prompt_tokens` already counts the cached ones; OpenAI
            // reports no cache writes.
            out.push_back(ModelEvent::Usage {
                input_tokens: usage["prompt_tokens"].as_u64(),
                output_tokens: usage["completion_tokens"].as_u64(),
                cache_read_tokens: usage["prompt_tokens_details"]["cached_tokens"].as_u64(),
                cache_write_tokens: None,
            });
        }
    }
}

impl WireParser for ChatParser {
    fn on_event(&mut self, event: &WireEvent<'_>, out: &mut VecDeque<ModelEvent>) {
        let data = event.data.trim();
        // An event without data (a keep-alive); comments never get here.
        if data.is_empty() {
            return;
        }
        if data == "[DONE]" {
            return self.on_end(out);
        }
        // serde would take a list for a struct's fields; a chunk is an object.
        let chunk = data
            .starts_with('{')
            .then(|| serde_json::from_str::<Chunk<'_>>(data).ok())
            .flatten();
        match chunk {
            Some(chunk) => self.chunk(chunk, out),
            None => {
                self.done = true;
                out.push_back(malformed());
            }
        }
    }

    fn on_end(&mut self, out: &mut VecDeque<ModelEvent>) {
        if self.done {
            return;
        }
        self.done = true;
        out.push_back(match self.finish.take() {
            Some(reason) => ModelEvent::Finish(reason),
            None => truncated(),
        });
    }

    fn finished(&self) -> bool {
        self.done
    }
}

impl ModelProvider for OpenAiProvider {
    fn route(&self, model: &str) -> ModelRoute {
        super::route(model, super::OPENAI)
    }

    fn stream(&self, request: ModelRequest) -> ModelStream {
        let url = format!("{}/chat/completions", self.base_url.trim_end_matches('/'));
        let mut body = request_body(&request);
        let cached = match &request.origin {
            Some(origin) if !self.refused.refused() => {
                cache::add_fields(&mut body, origin, &request.options.openai)
            }
            _ => false,
        };
        let key = request.api_key.or_else(|| self.platform_key.clone());
        let client = self.client.clone();
        let refused = self.refused.clone();
        let factory: RequestFactory = Arc::new(move || {
            // Refused by the server since this body was made: without them.
            let stripped = (cached && refused.refused())
                .then(|| refused.strip(&body))
                .flatten();
            let builder = client
                .get()
                .post(&url)
                .json(stripped.as_ref().unwrap_or(&body));
            match &key {
                Some(key) => builder.bearer_auth(key.expose()),
                None => builder,
            }
        });
        let refused = self.refused.clone();
        let check: Option<FieldCheck> =
            cached.then(|| Arc::new(move |message: &str| refused.check(message)) as FieldCheck);
        vendor_stream(self.retry.clone(), factory, check, ChatParser::default())
    }
}

#[cfg(test)]
mod tests;
