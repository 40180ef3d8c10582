//! `/api/agents/{id}/compaction`: the per-agent context compaction settings.
//! PUT is a partial update and answers the whole configuration.

use actix_web::{HttpResponse, web};
use confer_actors::{AgentId, CompactionConfig};
use serde::{Deserialize, Serialize};

use super::agents::live_agent;
use super::extract::{JsonBody, Patch};
use crate::auth::{Admin, Caller, Member};
use crate::error::{ApiError, stored};
use crate::state::AppState;
use crate::store::port::{PlainConfig, agent_config, update_agent_config};

/// The configuration as returned.
#[derive(Serialize, utoipa::ToSchema)]
pub struct CompactionView {
    agent_id: String,
    org_id: String,
    #[serde(flatten)]
    config: CompactionConfig,
}

/// `PUT` body: any subset of the fields.
#[derive(Clone, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PutCompaction {
    enabled: Option<bool>,
    vendor_a_trigger_tokens: Option<i64>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    vendor_a_instructions: Patch<String>,
    vendor_a_pause_after: Option<bool>,
    vendor_b_compact_threshold: Option<i64>,
}

/// A token count of at least `min` (422 otherwise).
fn at_least(field: &str, value: i64, min: u32) -> Result<u32, ApiError> {
    u32::try_from(value)
        .ok()
        .filter(|v| *v >= min)
        .ok_or_else(|| ApiError::invalid(field, format!("must be an integer of at least {min}")))
}

impl PutCompaction {
    /// Applies the present fields to `config`, checking each rule.
    fn apply(self, mut config: CompactionConfig) -> Result<CompactionConfig, ApiError> {
        if let Some(enabled) = self.enabled {
            config.enabled = enabled;
        }
        if let Some(tokens) = self.vendor_a_trigger_tokens {
            config.vendor_a_trigger_tokens = at_least(
                "vendorATriggerTokens",
                tokens,
                CompactionConfig::MIN_VENDOR_A_TRIGGER,
            )?;
        }
        if let Some(instructions) = self.vendor_a_instructions.into_change() {
            if instructions.as_deref().is_some_and(|i| i.trim().is_empty()) {
                return Err(ApiError::invalid(
                    "vendorAInstructions",
                    "must not be empty; use null for the built-in prompt",
                ));
            }
            config.vendor_a_instructions = instructions;
        }
        if let Some(pause) = self.vendor_a_pause_after {
            config.vendor_a_pause_after = pause;
        }
        if let Some(threshold) = self.vendor_b_compact_threshold {
            config.vendor_b_compact_threshold = at_least(
                "vendorBCompactThreshold",
                threshold,
                CompactionConfig::MIN_VENDOR_B_THRESHOLD,
            )?;
        }
        Ok(config)
    }
}

fn view(caller: &Caller, agent: AgentId, config: CompactionConfig) -> HttpResponse {
    HttpResponse::Ok().json(CompactionView {
        agent_id: agent.to_string(),
        org_id: caller.org_id.to_string(),
        config,
    })
}

/// `GET /api/agents/{id}/compaction`
#[utoipa::path(get, path = "/api/agents/{agent_id}/compaction", tag = "agents", operation_id = "compaction_get", security(("bearer" = ["member"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), responses((status = 200, description = "The compaction configuration", body = CompactionView)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<AgentId>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let org = caller.org_id;
    let config: CompactionConfig = agent_config(
        state.store.configs(),
        org,
        agent.id,
        PlainConfig::Compaction,
    )
    .await?;
    Ok(view(&caller, agent.id, config))
}

/// `PUT /api/agents/{id}/compaction`
#[utoipa::path(put, path = "/api/agents/{agent_id}/compaction", tag = "agents", operation_id = "compaction_put", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = PutCompaction, responses((status = 200, description = "The updated configuration", body = CompactionView)))]
pub async fn put(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<PutCompaction>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let org = caller.org_id;
    let changes = body.into_inner();
    // One compare-and-swap; a rule violation stores nothing.
    let change = move |config| changes.clone().apply(config);
    let configs = state.store.configs();
    let outcome =
        update_agent_config(configs, org, agent.id, PlainConfig::Compaction, change).await?;
    let config = stored(outcome, "agent")?;
    Ok(view(&caller, agent.id, config))
}
