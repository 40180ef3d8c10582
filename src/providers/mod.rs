//! Model providers behind the engine's `ModelProvider` port, and the routing
//! of a model ID to one of them (decisions.md, "Models and providers"):
//! an explicit `anthropic/`, `openai/` or `builtin/` prefix picks the provider
//! (and is stripped); otherwise `claude-*` goes to Anthropic, `gpt-*`, `o1*`,
//! `o3*`, `o4*`, `chatgpt-*` to OpenAI, and anything else to the fallback.

pub mod anthropic;
pub mod builtin;
pub mod client;
pub mod openai;
pub mod retry;
pub mod sse_decoder;
pub mod tokens;
pub mod vendor;

use std::time::Duration;

use confer_actors::{ModelProvider, ModelRequest, ModelRoute, ModelStream, VendorKey};
use secrecy::ExposeSecret;

use self::anthropic::AnthropicProvider;
use self::builtin::BuiltinProvider;
use self::openai::OpenAiProvider;
use self::retry::RetryPolicy;
use crate::settings::Settings;

/// Provider names as they appear in routes and usage records.
pub const BUILTIN: &str = "builtin";
pub const ANTHROPIC: &str = "anthropic";
pub const OPENAI: &str = "openai";

/// Routes a model ID to its provider; `fallback` takes unrecognised names.
pub fn route(model: &str, fallback: &str) -> ModelRoute {
    let routed = |provider: &str, model: &str| ModelRoute {
        provider: provider.to_owned(),
        model: model.to_owned(),
        external: provider != BUILTIN,
    };
    for provider in [ANTHROPIC, OPENAI, BUILTIN] {
        if let Some(rest) = model
            .strip_prefix(provider)
            .and_then(|r| r.strip_prefix('/'))
        {
            return routed(provider, rest);
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
    routed(provider, model)
}

/// Every configured provider, dispatched by route.
pub struct ProviderRouter {
    builtin: BuiltinProvider,
    openai: OpenAiProvider,
    anthropic: AnthropicProvider,
    fallback: String,
}

impl ProviderRouter {
    /// The providers of `settings`, sharing one HTTP client.
    pub fn new(settings: &Settings, client: client::VendorClient) -> Self {
        let retry = RetryPolicy {
            max_retries: settings.vendor_max_retries,
            base_delay: Duration::from_millis(settings.vendor_retry_base_ms),
            max_delay: Duration::from_millis(settings.vendor_retry_max_ms),
            first_byte_timeout: Duration::from_millis(settings.vendor_first_byte_timeout_ms),
        };
        let key = |k: &Option<secrecy::SecretString>| {
            k.as_ref().map(|k| VendorKey::new(k.expose_secret()))
        };
        Self {
            builtin: BuiltinProvider::new(Duration::from_millis(settings.builtin_delay_ms)),
            openai: OpenAiProvider {
                client: client.clone(),
                base_url: settings.openai_base_url.clone(),
                platform_key: key(&settings.openai_api_key),
                retry: retry.clone(),
                refused: Default::default(),
            },
            anthropic: AnthropicProvider {
                client,
                base_url: settings.anthropic_base_url.clone(),
                platform_key: key(&settings.anthropic_api_key),
                max_tokens: settings.anthropic_max_tokens,
                retry,
            },
            fallback: settings.fallback_provider.clone(),
        }
    }
}

impl ModelProvider for ProviderRouter {
    fn route(&self, model: &str) -> ModelRoute {
        route(model, &self.fallback)
    }

    fn stream(&self, request: ModelRequest) -> ModelStream {
        match request.route.provider.as_str() {
            ANTHROPIC => self.anthropic.stream(request),
            BUILTIN => self.builtin.stream(request),
            _ => self.openai.stream(request),
        }
    }

    fn token_counter(&self, route: &ModelRoute) -> confer_actors::provider::CounterFuture {
        tokens::counter_for(route)
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
