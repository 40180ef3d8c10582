//! Model providers behind the engine's `ModelProvider` port, and the routing
//! of a model ID to one of them (decisions.md, "Models and providers"):
//! an explicit `anthropic/`, `openai/` or `builtin/` prefix picks the provider
//! (and is stripped); otherwise `claude-*` goes to Anthropic, `gpt-*`, `o1*`,
//! `o3*`, `o4*`, `chatgpt-*` to OpenAI, and anything else to the fallback.

pub mod builtin;

use std::time::Duration;

use confer_actors::{ModelError, ModelEvent, ModelProvider, ModelRequest, ModelRoute, ModelStream};

use self::builtin::BuiltinProvider;

/// Provider names as they appear in routes and usage records.
pub const BUILTIN: &str = "builtin";
pub const ANTHROPIC: &str = "anthropic";
pub const OPENAI: &str = "openai";

/// Routes a model ID to its provider.
pub fn route(model: &str, fallback: &str) -> ModelRoute {
    for provider in [ANTHROPIC, OPENAI, BUILTIN] {
        if let Some(rest) = model
            .strip_prefix(provider)
            .and_then(|r| r.strip_prefix('/'))
        {
            return ModelRoute {
                provider: provider.to_owned(),
                model: rest.to_owned(),
            };
        }
    }
    let provider = if model.starts_with("claude-") {
        ANTHROPIC
    } else if ["gpt-", "o1", "o3", "o4", "chatgpt-"]
        .iter()
        .any(|p| model.starts_with(p))
    {
        OPENAI
    } else {
        fallback
    };
    ModelRoute {
        provider: provider.to_owned(),
        model: model.to_owned(),
    }
}

/// Every configured provider, dispatched by route.
pub struct ProviderRouter {
    builtin: BuiltinProvider,
    fallback: String,
}

impl ProviderRouter {
    /// The router with the built-in models pacing tokens `builtin_delay` apart.
    pub fn new(builtin_delay: Duration) -> Self {
        Self {
            builtin: BuiltinProvider::new(builtin_delay),
            fallback: OPENAI.to_owned(),
        }
    }
}

impl ModelProvider for ProviderRouter {
    fn route(&self, model: &str) -> ModelRoute {
        route(model, &self.fallback)
    }

    fn stream(&self, request: ModelRequest) -> ModelStream {
        match request.route.provider.as_str() {
            BUILTIN => self.builtin.stream(request),
            other => {
                let error = ModelError::model(format!(
                    "provider `{other}` is not available in this build; use a builtin/ model"
                ));
                Box::pin(futures_util::stream::iter([ModelEvent::Error(error)]))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn routed(model: &str) -> (String, String) {
        let r = route(model, OPENAI);
        (r.provider, r.model)
    }

    #[test]
    fn routing_follows_the_contract() {
        assert_eq!(
            routed("anthropic/claude-x"),
            ("anthropic".into(), "claude-x".into())
        );
        assert_eq!(routed("openai/llama3"), ("openai".into(), "llama3".into()));
        assert_eq!(routed("builtin/echo"), ("builtin".into(), "echo".into()));
        assert_eq!(
            routed("claude-sonnet-4-6"),
            ("anthropic".into(), "claude-sonnet-4-6".into())
        );
        for model in ["gpt-4.1", "o1-mini", "o3", "o4-mini", "chatgpt-4o-latest"] {
            assert_eq!(routed(model).0, "openai", "{model}");
        }
        assert_eq!(
            routed("llama3.1:8b"),
            ("openai".into(), "llama3.1:8b".into())
        );
        assert_eq!(route("mistral", ANTHROPIC).provider, "anthropic");
    }
}
