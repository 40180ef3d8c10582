//! The built-in web tools (`agent-extras.md` §4): `web_fetch` and
//! `web_search`, offered while the agent's web configuration is enabled
//! and the tool's part is on (then gated as any tool). The configuration
//! is read at the offer and again at each call, so a change applies at
//! once.

use std::sync::Arc;

use confer_actors::tools::{NOT_AVAILABLE, ToolOutput, ToolScope};
use confer_actors::{ToolCall, ToolDefinition};
use serde::Deserialize;
use serde_json::json;

use crate::outbound::Outbound;
use crate::store::Store;
use crate::web_tools::config::WebConfig;
use crate::web_tools::robots::RobotsCache;
use crate::web_tools::stored;
use crate::web_tools::{fetch, search};

/// `web_fetch`'s name.
pub const WEB_FETCH: &str = "web_fetch";
/// `web_search`'s name.
pub const WEB_SEARCH: &str = "web_search";

/// The web tools.
#[derive(Clone)]
pub struct WebTools {
    store: Store,
    outbound: Outbound,
    robots: Arc<RobotsCache>,
}

#[derive(Deserialize)]
struct FetchArguments {
    url: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SearchArguments {
    query: String,
    max_results: Option<usize>,
}

fn fetch_definition() -> ToolDefinition {
    ToolDefinition {
        name: WEB_FETCH.into(),
        description: Some(
            "Fetch a web page (http or https) and read it as Markdown or text.".into(),
        ),
        parameters: json!({
            "type": "object",
            "properties": {"url": {"type": "string", "description": "The page's URL"}},
            "required": ["url"]
        }),
    }
}

fn search_definition() -> ToolDefinition {
    ToolDefinition {
        name: WEB_SEARCH.into(),
        description: Some("Search the web; answers titles, URLs and snippets.".into()),
        parameters: json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "maxLength": 400},
                "maxResults": {"type": "integer", "minimum": 1, "maximum": 10}
            },
            "required": ["query"]
        }),
    }
}

/// The tools `config` turns on.
pub fn offer(config: &WebConfig) -> Vec<ToolDefinition> {
    let mut tools = Vec::new();
    if config.enabled && config.fetch.enabled {
        tools.push(fetch_definition());
    }
    if config.enabled && config.search.enabled {
        tools.push(search_definition());
    }
    tools
}

fn output(result: Result<serde_json::Value, String>) -> ToolOutput {
    match result {
        Ok(result) => ToolOutput {
            result,
            is_error: false,
        },
        Err(reason) => ToolOutput::error(reason),
    }
}

impl WebTools {
    pub fn new(store: Store, outbound: Outbound) -> Self {
        Self {
            store,
            outbound,
            robots: Arc::default(),
        }
    }

    async fn config(&self, scope: &ToolScope) -> Option<WebConfig> {
        let (org, agent) = (scope.org, scope.agent);
        match stored::web_config(&self.store, org, agent).await {
            Ok(config) => Some(config).filter(|c| c.enabled),
            Err(error) => {
                tracing::error!(%error, "reading a web configuration failed");
                None
            }
        }
    }

    /// Runs a `web_fetch` or `web_search` call.
    pub async fn execute(&self, scope: ToolScope, call: ToolCall) -> ToolOutput {
        let Some(config) = self.config(&scope).await else {
            return ToolOutput::error(NOT_AVAILABLE);
        };
        if call.name == WEB_FETCH {
            if !config.fetch.enabled {
                return ToolOutput::error(NOT_AVAILABLE);
            }
            let Ok(arguments) = serde_json::from_value::<FetchArguments>(call.arguments) else {
                return ToolOutput::error("arguments: url (a string) is required");
            };
            return output(
                fetch::web_fetch(&self.outbound, &self.robots, &config, &arguments.url).await,
            );
        }
        if !config.search.enabled {
            return ToolOutput::error(NOT_AVAILABLE);
        }
        let Ok(arguments) = serde_json::from_value::<SearchArguments>(call.arguments) else {
            return ToolOutput::error("arguments: query (a string) is required");
        };
        let query = arguments.query.trim().to_owned();
        if query.is_empty() || query.chars().count() > 400 {
            return ToolOutput::error("arguments: query must be 1 to 400 characters");
        }
        let key = match stored::search_key(&self.store, scope.org, scope.agent, &config) {
            Ok(key) => key,
            Err(error) => {
                tracing::error!(%error, "a search key did not open");
                return ToolOutput::error("search backend unreachable");
            }
        };
        let max = arguments
            .max_results
            .unwrap_or(config.search.max_results as usize)
            .clamp(1, 10);
        output(search::web_search(&self.outbound, &config, key.as_deref(), &query, max).await)
    }
}
