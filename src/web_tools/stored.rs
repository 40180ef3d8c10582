//! An agent's web configuration as the store keeps it, on either store:
//! a configuration of the agent (`ConfigKind::Web`, through the configs
//! port) whose search key is sealed here before it is stored and opened
//! here only to call the backend.

use confer_actors::{AgentId, OrgId, StoreError};
use secrecy::ExposeSecret;

use super::config::WebConfig;
use crate::error::ApiError;
use crate::secrets::SecretBox;
use crate::store::Store;
use crate::store::port::{PlainConfig, agent_config, update_agent_config};
use crate::store::update::Updated;

/// What the search key is sealed to (as sled's records always were).
fn key_aad(org: OrgId, agent: AgentId) -> String {
    crate::secrets::aad(
        &org.to_string(),
        "agent_web",
        &agent.to_string(),
        "search.api_key",
    )
}

/// The agent's web configuration (`agent-extras.md` §4 defaults when
/// unset), its search key sealed.
pub async fn web_config(
    store: &Store,
    org: OrgId,
    agent: AgentId,
) -> Result<WebConfig, StoreError> {
    agent_config(store.configs(), org, agent, PlainConfig::Web).await
}

/// Changes the agent's web configuration (from the defaults) atomically;
/// a plain search key the change sets is sealed before it is stored.
pub async fn update_web_config(
    store: &Store,
    org: OrgId,
    agent: AgentId,
    mut change: impl FnMut(WebConfig) -> Result<WebConfig, ApiError> + Send + 'static,
) -> Result<Updated<WebConfig, ApiError>, StoreError> {
    let secrets = store.secrets();
    let sealing = key_aad(org, agent);
    let sealed = move |config: WebConfig| {
        let mut config = change(config)?;
        if let Some(plain) = config.search.api_key.take_if(|k| !SecretBox::is_sealed(k)) {
            let sealed = secrets
                .seal(&plain, &sealing)
                .map_err(|e| ApiError::Internal(format!("sealing a search key: {e}")))?;
            config.search.api_key = Some(sealed);
        }
        Ok(config)
    };
    update_agent_config(store.configs(), org, agent, PlainConfig::Web, sealed).await
}

/// The agent's search key, opened.
pub fn search_key(
    store: &Store,
    org: OrgId,
    agent: AgentId,
    config: &WebConfig,
) -> Result<Option<String>, StoreError> {
    config
        .search
        .api_key
        .as_deref()
        .map(|sealed| {
            store
                .secrets()
                .open(sealed, &key_aad(org, agent))
                .map(|s| s.expose_secret().to_owned())
                .map_err(|e| StoreError::Engine(e.to_string()))
        })
        .transpose()
}
