//! The server most vendor tests run against: its two vendors are in-process
//! mocks (Anthropic under a path prefix), with platform keys and short
//! retry waits.

use serde_json::json;

use crate::common::{Api, Options, Server};
use crate::mock::Mock;

/// A server whose two vendors are mocks (Anthropic under a path prefix).
pub struct VendorRig {
    pub openai: Mock,
    pub anthropic: Mock,
    /// Kept alive for the rig's lifetime.
    _server: Server,
    pub api: Api,
}

/// Server options whose Anthropic and OpenAI base URLs are `anthropic` and
/// `openai`, with platform keys and short retry waits (`env` added, and
/// winning).
pub fn on_vendors(anthropic: &str, openai: &str, env: &[(&str, &str)]) -> Options {
    let mut options = Options::default()
        .env("OPENAI_BASE_URL", openai)
        .env("OPENAI_API_KEY", "sk-platform-openai")
        .env("ANTHROPIC_BASE_URL", anthropic)
        .env("ANTHROPIC_API_KEY", "sk-platform-anthropic")
        .env("CONFER_VENDOR_RETRY_BASE_MS", "5");
    for (key, value) in env {
        options = options.env(key, value);
    }
    options
}

impl VendorRig {
    pub async fn start() -> Self {
        Self::start_with(&[]).await
    }

    /// The rig with more settings (`env` wins over the rig's own).
    pub async fn start_with(env: &[(&str, &str)]) -> Self {
        let openai = Mock::start("/v1").await;
        let anthropic = Mock::start("/anthropic").await;
        let server = Server::start_with(on_vendors(&anthropic.base, &openai.base, env));
        let api = server.admin();
        Self {
            openai,
            anthropic,
            _server: server,
            api,
        }
    }

    /// A thread on a new agent using `model` with `preamble`.
    pub async fn thread(&self, model: &str, preamble: &str) -> String {
        let agent = self
            .api
            .post(
                "/api/agents",
                json!({"name": "V", "defaultModel": model, "stablePreamble": preamble}),
            )
            .await
            .expect(201);
        self.api
            .thread(agent["id"].as_str().unwrap(), json!({}))
            .await
    }
}
