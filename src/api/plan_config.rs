//! `/api/agents/{id}/plan`: whether an agent plans (`plans.md`): the
//! built-in plan tools offered, the `autoCreate` hint, and approval of
//! tool-made plans by a client. PUT is a partial update and answers the
//! whole configuration.

use actix_web::{HttpResponse, web};
use confer_actors::{AgentId, PlanConfig};
use serde::{Deserialize, Serialize};

use super::agents::live_agent;
use super::extract::JsonBody;
use crate::auth::{Admin, Caller, Member};
use crate::error::{ApiError, stored};
use crate::state::AppState;
use crate::store::port::{PlainConfig, agent_config, update_agent_config};

/// The configuration as returned.
#[derive(Serialize, utoipa::ToSchema)]
pub struct PlanConfigView {
    agent_id: String,
    org_id: String,
    #[serde(flatten)]
    config: PlanConfig,
}

/// `PUT` body: any subset of the fields, each a boolean.
#[derive(Clone, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PutPlanConfig {
    enabled: Option<bool>,
    auto_create: Option<bool>,
    require_approval: Option<bool>,
}

impl PutPlanConfig {
    /// `config` with the present fields set.
    fn apply(&self, mut config: PlanConfig) -> PlanConfig {
        if let Some(enabled) = self.enabled {
            config.enabled = enabled;
        }
        if let Some(auto_create) = self.auto_create {
            config.auto_create = auto_create;
        }
        if let Some(require_approval) = self.require_approval {
            config.require_approval = require_approval;
        }
        config
    }
}

fn view(caller: &Caller, agent: AgentId, config: PlanConfig) -> HttpResponse {
    HttpResponse::Ok().json(PlanConfigView {
        agent_id: agent.to_string(),
        org_id: caller.org_id.to_string(),
        config,
    })
}

/// `GET /api/agents/{id}/plan`
#[utoipa::path(get, path = "/api/agents/{agent_id}/plan", tag = "agents", operation_id = "plan_config_get", security(("bearer" = ["member"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), responses((status = 200, description = "The plan configuration (all false when never set)", body = PlanConfigView)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<AgentId>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let org = caller.org_id;
    let config: PlanConfig =
        agent_config(state.store.configs(), org, agent.id, PlainConfig::Plans).await?;
    Ok(view(&caller, agent.id, config))
}

/// `PUT /api/agents/{id}/plan`
#[utoipa::path(put, path = "/api/agents/{agent_id}/plan", tag = "agents", operation_id = "plan_config_put", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = PutPlanConfig, responses((status = 200, description = "The updated configuration", body = PlanConfigView)))]
pub async fn put(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<PutPlanConfig>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let org = caller.org_id;
    let changes = body.into_inner();
    let change = move |config| Ok(changes.apply(config));
    let configs = state.store.configs();
    let outcome = update_agent_config(configs, org, agent.id, PlainConfig::Plans, change).await?;
    Ok(view(&caller, agent.id, stored(outcome, "agent")?))
}
