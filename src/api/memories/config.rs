//! `GET/PUT /api/agents/{id}/memory` (`knowledge.md` §5): whether an agent
//! keeps memories and how. PUT is a partial update and answers the whole
//! configuration.

use actix_web::{HttpResponse, web};
use confer_actors::AgentId;
use serde::{Deserialize, Serialize};

use crate::api::agent_config;
use crate::api::extract::JsonBody;
use crate::auth::{Admin, Member};
use crate::error::ApiError;
use crate::knowledge::memory::{MemoryConfig, MemoryScope};
use crate::state::AppState;
use crate::store::port::PlainConfig;

/// The configuration as returned (its schema; `agent_config` shapes it).
#[allow(dead_code)]
#[derive(Serialize, utoipa::ToSchema)]
pub struct MemoryConfigView {
    agent_id: String,
    org_id: String,
    #[serde(flatten)]
    config: MemoryConfig,
}

/// `PUT` body: any subset of the fields.
#[derive(Clone, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PutMemoryConfig {
    enabled: Option<bool>,
    auto_inject: Option<bool>,
    /// 0–20.
    inject_count: Option<u32>,
    auto_collect: Option<bool>,
    /// 200–16,000.
    collect_budget_tokens: Option<u32>,
    /// 1–100,000.
    max_memories: Option<u32>,
    tool_scope: Option<MemoryScope>,
}

impl PutMemoryConfig {
    fn check(&self) -> Result<(), ApiError> {
        let out = |value: Option<u32>, range: std::ops::RangeInclusive<u32>| {
            value.is_some_and(|v| !range.contains(&v))
        };
        if out(self.inject_count, 0..=20) {
            return Err(ApiError::invalid("injectCount", "must be 0–20"));
        }
        if out(self.collect_budget_tokens, 200..=16_000) {
            return Err(ApiError::invalid(
                "collectBudgetTokens",
                "must be 200–16000",
            ));
        }
        if out(self.max_memories, 1..=100_000) {
            return Err(ApiError::invalid("maxMemories", "must be 1–100000"));
        }
        Ok(())
    }

    fn apply(&self, mut c: MemoryConfig) -> MemoryConfig {
        c.enabled = self.enabled.unwrap_or(c.enabled);
        c.auto_inject = self.auto_inject.unwrap_or(c.auto_inject);
        c.inject_count = self.inject_count.unwrap_or(c.inject_count);
        c.auto_collect = self.auto_collect.unwrap_or(c.auto_collect);
        c.collect_budget_tokens = self
            .collect_budget_tokens
            .unwrap_or(c.collect_budget_tokens);
        c.max_memories = self.max_memories.unwrap_or(c.max_memories);
        c.tool_scope = self.tool_scope.unwrap_or(c.tool_scope);
        c
    }
}

/// `GET /api/agents/{id}/memory`
#[utoipa::path(get, path = "/api/agents/{agent_id}/memory", tag = "agents", operation_id = "memory_config_get", security(("bearer" = ["member"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), responses((status = 200, description = "The memory configuration (the defaults when never set)", body = MemoryConfigView)))]
pub async fn get_config(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<AgentId>,
) -> Result<HttpResponse, ApiError> {
    agent_config::get_plain::<MemoryConfig>(&state, &caller, path.into_inner(), PlainConfig::Memory)
        .await
}

/// `PUT /api/agents/{id}/memory`
#[utoipa::path(put, path = "/api/agents/{agent_id}/memory", tag = "agents", operation_id = "memory_config_put", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = PutMemoryConfig, responses((status = 200, description = "The updated configuration", body = MemoryConfigView), (status = 422, description = "A value out of range", body = crate::error::ErrorBody<'static>)))]
pub async fn put_config(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<PutMemoryConfig>,
) -> Result<HttpResponse, ApiError> {
    let changes = body.into_inner();
    changes.check()?;
    agent_config::put_plain(
        &state,
        &caller,
        path.into_inner(),
        PlainConfig::Memory,
        move |config: MemoryConfig| Ok(changes.apply(config)),
    )
    .await
}
