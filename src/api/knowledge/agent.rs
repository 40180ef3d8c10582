//! `/api/agents/{id}/knowledge` (`knowledge.md` §4): whether and how an
//! agent's turns reach knowledge. PUT is a partial update and answers the
//! whole configuration.

use actix_web::{HttpResponse, web};
use confer_actors::{AgentId, KnowledgeConfig, KnowledgeMode};
use serde::{Deserialize, Serialize};

use crate::api::agent_config;
use crate::api::extract::JsonBody;
use crate::auth::{Admin, Member};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::port::PlainConfig;

/// The configuration as returned (its schema; `agent_config` shapes it).
#[allow(dead_code)]
#[derive(Serialize, utoipa::ToSchema)]
pub struct KnowledgeConfigView {
    agent_id: String,
    org_id: String,
    #[serde(flatten)]
    config: KnowledgeConfig,
}

/// `PUT` body: any subset of the fields.
#[derive(Clone, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PutKnowledgeConfig {
    enabled: Option<bool>,
    include_org: Option<bool>,
    mode: Option<KnowledgeMode>,
    /// 1–20.
    top_k: Option<u32>,
}

impl PutKnowledgeConfig {
    fn check(&self) -> Result<(), ApiError> {
        match self.top_k {
            Some(k) if !(1..=20).contains(&k) => Err(ApiError::invalid("topK", "must be 1–20")),
            _ => Ok(()),
        }
    }

    fn apply(&self, mut config: KnowledgeConfig) -> KnowledgeConfig {
        config.enabled = self.enabled.unwrap_or(config.enabled);
        config.include_org = self.include_org.unwrap_or(config.include_org);
        config.mode = self.mode.unwrap_or(config.mode);
        config.top_k = self.top_k.unwrap_or(config.top_k);
        config
    }
}

/// `GET /api/agents/{id}/knowledge`
#[utoipa::path(get, path = "/api/agents/{agent_id}/knowledge", tag = "agents", operation_id = "knowledge_config_get", security(("bearer" = ["member"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), responses((status = 200, description = "The knowledge configuration (the defaults when never set)", body = KnowledgeConfigView)))]
pub async fn get_config(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<AgentId>,
) -> Result<HttpResponse, ApiError> {
    agent_config::get_plain::<KnowledgeConfig>(
        &state,
        &caller,
        path.into_inner(),
        PlainConfig::Knowledge,
    )
    .await
}

/// `PUT /api/agents/{id}/knowledge`
#[utoipa::path(put, path = "/api/agents/{agent_id}/knowledge", tag = "agents", operation_id = "knowledge_config_put", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = PutKnowledgeConfig, responses((status = 200, description = "The updated configuration", body = KnowledgeConfigView), (status = 422, description = "topK out of range", body = crate::error::ErrorBody<'static>)))]
pub async fn put_config(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<PutKnowledgeConfig>,
) -> Result<HttpResponse, ApiError> {
    let changes = body.into_inner();
    changes.check()?;
    agent_config::put_plain(
        &state,
        &caller,
        path.into_inner(),
        PlainConfig::Knowledge,
        move |config: KnowledgeConfig| Ok(changes.apply(config)),
    )
    .await
}
