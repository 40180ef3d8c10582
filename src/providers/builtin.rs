//! The built-in models, needing no vendor: they serve the out-of-the-box run,
//! the tests and the benchmarks.
//!
//! - `builtin/echo` streams back the last user message, one token event per
//!   whitespace-separated word (with its trailing whitespace).
//! - `builtin/inspect` streams, the same way, a JSON description of the
//!   context it was given (`{"system": ..., "messages": [...]}`): a way to see
//!   exactly what a turn sends to a model.
//!
//! Tokens are `delay` apart; usage counts the request's estimated tokens in
//! and the token events out.

use std::time::Duration;

use confer_actors::provider::estimate_tokens;
use confer_actors::{
    ContextRole, FinishReason, ModelError, ModelEvent, ModelProvider, ModelRequest, ModelRoute,
    ModelStream,
};
use futures_util::StreamExt;
use serde_json::json;

/// The built-in models.
pub struct BuiltinProvider {
    delay: Duration,
}

/// Splits text into words that keep their trailing whitespace, so the pieces
/// concatenate back to the text.
pub fn words(text: &str) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut current = String::new();
    let mut after_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            after_space = true;
        } else if after_space && !current.trim().is_empty() {
            pieces.push(std::mem::take(&mut current));
            after_space = false;
        } else {
            after_space = false;
        }
        current.push(c);
    }
    if !current.is_empty() {
        pieces.push(current);
    }
    pieces
}

impl BuiltinProvider {
    /// Built-in models pacing tokens `delay` apart.
    pub fn new(delay: Duration) -> Self {
        Self { delay }
    }

    fn answer(request: &ModelRequest) -> Result<String, ModelError> {
        match request.route.model.as_str() {
            "echo" => Ok(request
                .messages
                .iter()
                .rev()
                .find(|m| m.role == ContextRole::User)
                .map(|m| m.content.clone())
                .unwrap_or_default()),
            "inspect" => {
                let description = json!({"system": request.system, "messages": *request.messages});
                Ok(description.to_string())
            }
            other => Err(ModelError::model(format!(
                "unknown built-in model `builtin/{other}` (available: builtin/echo, builtin/inspect)"
            ))),
        }
    }
}

impl ModelProvider for BuiltinProvider {
    fn route(&self, model: &str) -> ModelRoute {
        super::route(model, super::BUILTIN)
    }

    fn stream(&self, request: ModelRequest) -> ModelStream {
        let answer = match Self::answer(&request) {
            Ok(answer) => answer,
            Err(error) => return Box::pin(futures_util::stream::iter([ModelEvent::Error(error)])),
        };
        let input_tokens = estimate_tokens(&request.system)
            + request
                .messages
                .iter()
                .map(|m| estimate_tokens(&m.content))
                .sum::<u64>();
        let tokens = words(&answer);
        let output_tokens = tokens.len() as u64;
        let delay = self.delay;
        let text = futures_util::stream::iter(tokens.into_iter().enumerate()).then(
            move |(index, token)| async move {
                if index > 0 && !delay.is_zero() {
                    tokio::time::sleep(delay).await;
                }
                ModelEvent::Text(token)
            },
        );
        let end = futures_util::stream::iter([
            ModelEvent::Usage {
                input_tokens: Some(input_tokens),
                output_tokens: Some(output_tokens),
                cache_read_tokens: None,
                cache_write_tokens: None,
            },
            ModelEvent::Finish(FinishReason::Stop),
        ]);
        Box::pin(futures_util::stream::iter([ModelEvent::Accepted]).chain(text.chain(end)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use confer_actors::ContextMessage;

    #[test]
    fn words_keep_their_whitespace_and_concatenate_back() {
        assert_eq!(words("hello big  world"), ["hello ", "big  ", "world"]);
        assert_eq!(words(" lead\ntrail "), [" lead\n", "trail "]);
        assert!(words("").is_empty());
        for text in ["a", "a b", "  x  y  ", "one\ttwo\nthree"] {
            assert_eq!(words(text).concat(), text);
        }
    }

    #[tokio::test]
    async fn echo_streams_the_last_user_message_then_usage_and_finish() {
        let provider = BuiltinProvider::new(Duration::ZERO);
        let request = ModelRequest {
            system_stable_len: 0,
            origin: None,
            options: Default::default(),
            route: provider.route("builtin/echo"),
            system: String::new(),
            messages: std::sync::Arc::new(vec![ContextMessage::text(
                ContextRole::User,
                "hi there",
            )]),
            tools: Vec::new(),
            api_key: None,
            tool_choice_none: false,
            compaction: None,
        };
        let events: Vec<_> = provider.stream(request).collect().await;
        assert_eq!(events[0], ModelEvent::Accepted);
        assert_eq!(events[1], ModelEvent::Text("hi ".into()));
        assert_eq!(events[2], ModelEvent::Text("there".into()));
        assert!(matches!(
            events[3],
            ModelEvent::Usage {
                output_tokens: Some(2),
                ..
            }
        ));
        assert_eq!(events[4], ModelEvent::Finish(FinishReason::Stop));
    }
}
