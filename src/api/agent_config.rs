//! What the per-agent configuration routes share (`…/knowledge`,
//! `…/memory`): the answer (the agent's and org's ids, then the fields),
//! and the read and the compare-and-swap write of a live agent's plain
//! configuration through the store's port.

use actix_web::HttpResponse;
use confer_actors::AgentId;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::agents::live_agent;
use crate::auth::Caller;
use crate::error::{ApiError, stored};
use crate::state::AppState;
use crate::store::port::{PlainConfig, agent_config, update_agent_config};

/// A configuration as returned.
#[derive(Serialize)]
struct ConfigView<T> {
    agent_id: String,
    org_id: String,
    #[serde(flatten)]
    config: T,
}

/// A configuration's answer: the agent's and org's ids, then its fields.
pub fn view<T: Serialize>(caller: &Caller, agent: AgentId, config: T) -> HttpResponse {
    HttpResponse::Ok().json(ConfigView {
        agent_id: agent.to_string(),
        org_id: caller.org_id.to_string(),
        config,
    })
}

/// 200 with the live agent `id`'s plain configuration, read through the
/// store's port.
pub async fn get_plain<T>(
    state: &AppState,
    caller: &Caller,
    id: AgentId,
    kind: PlainConfig,
) -> Result<HttpResponse, ApiError>
where
    T: Serialize + DeserializeOwned + Default,
{
    let agent = live_agent(state, caller, id).await?;
    let config: T = agent_config(state.store.configs(), caller.org_id, agent.id, kind).await?;
    Ok(view(caller, agent.id, config))
}

/// 200 with the live agent `id`'s plain configuration once `change`,
/// applied to the stored one (its default when unset) by compare-and-swap
/// through the store's port, stored it; 404 if the agent went meanwhile.
pub async fn put_plain<T>(
    state: &AppState,
    caller: &Caller,
    id: AgentId,
    kind: PlainConfig,
    change: impl FnMut(T) -> Result<T, ApiError> + Send + 'static,
) -> Result<HttpResponse, ApiError>
where
    T: Serialize + DeserializeOwned + Default,
{
    let agent = live_agent(state, caller, id).await?;
    let configs = state.store.configs();
    let outcome = update_agent_config(configs, caller.org_id, agent.id, kind, change).await?;
    Ok(view(caller, agent.id, stored(outcome, "agent")?))
}
