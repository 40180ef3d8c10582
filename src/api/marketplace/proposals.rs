//! `generate-description` and `detect-capabilities` (A,
//! `marketplace-channels.md` §4): one model call each on the agent's model
//! (or `model`) with the platform key, nothing saved. Rules:
//! `crate::marketplace::proposals`.

use actix_web::{HttpResponse, web};
use confer_actors::{Agent, AgentId, PlanConfig, UsagePurpose};
use serde::{Deserialize, Serialize};

use super::profile_of;
use crate::api::agents::live_agent;
use crate::api::extract::JsonBody;
use crate::auth::Admin;
use crate::error::ApiError;
use crate::marketplace::listing;
use crate::marketplace::profile::{Capability, Profile};
use crate::marketplace::proposals::{
    self, CAPABILITIES_PROMPT, DESCRIBE_PROMPT, MAX_INSTRUCTIONS, MAX_TOKENS, Offered, Proposal,
};
use crate::state::AppState;
use crate::store::port::DocumentFilter;
use crate::store::port::configs::{PlainConfig, agent_config};
use crate::suggestions::{SideAnswer, SuggestCall};

/// `generate-description`'s body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DescribeBody {
    /// Added to the system prompt (at most 1,000 characters).
    instructions: Option<String>,
    /// Another model than the agent's.
    model: Option<String>,
}

/// The tokens a proposal call was billed.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ProposalUsage {
    input_tokens: u64,
    output_tokens: u64,
}

/// `generate-description`'s answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct DescribeAnswer {
    proposal: Proposal,
    /// Whether the answer held a JSON object (else its text is the
    /// description).
    parsed: bool,
    model: String,
    usage: ProposalUsage,
}

/// `detect-capabilities`' body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DetectBody {
    /// `model` (the default) or `tools` (no call).
    mode: Option<String>,
}

/// `detect-capabilities`' answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct DetectAnswer {
    capabilities: Vec<Capability>,
    /// `model`, or `tools` when the list is the deterministic one.
    source: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<ProposalUsage>,
}

/// What the model is told about an agent.
struct Facts {
    profile: Profile,
    offered: Offered,
    prompt: String,
}

async fn facts(state: &AppState, agent: &Agent) -> Result<Facts, ApiError> {
    let profile = profile_of(state, agent).await?;
    let (org, id) = (agent.org_id, agent.id);
    let store = &state.store;
    let plan: PlanConfig = agent_config(store.configs(), org, id, PlainConfig::Plans).await?;
    let tools = store.tools().list_tools(org).await?;
    let integrations = store.integrations().org_integrations(org).await?;
    let mcps = store.mcps().org_mcps(org).await?;
    let scope = DocumentFilter {
        scope: Some(crate::knowledge::document::Scope::Agent(id)),
        status: None,
    };
    let (documents, _) = store.documents().documents(org, scope, None, 50).await?;
    let offered = proposals::offered(agent, &plan, &tools, &integrations, &mcps);
    let servers = mcps.of_agent(id).map(|(s, _)| s.name.clone()).collect();
    let titles = documents.into_iter().map(|d| d.title).collect();
    let prompt = proposals::agent_facts(agent, &profile, &offered, servers, titles);
    Ok(Facts {
        profile,
        offered,
        prompt,
    })
}

/// Makes one proposal call for `agent` within its org's bound.
async fn call(
    state: &AppState,
    caller: &Admin,
    agent: &Agent,
    model: Option<String>,
    system: String,
    prompt: String,
) -> Result<SideAnswer, ApiError> {
    let _slot = state
        .proposal_slots
        .take(agent.org_id)
        .ok_or_else(|| ApiError::RateLimited {
            detail: format!(
                "at most {} marketplace proposals of an org at once",
                proposals::PER_ORG
            ),
            limit: proposals::PER_ORG as u32,
            retry_after: 5,
        })?;
    let ask = SuggestCall {
        org: agent.org_id,
        agent: agent.id,
        runner: None,
        user_id: caller.user_id(),
        model: model.unwrap_or_else(|| agent.default_model.clone()),
        system,
        prompt,
        purpose: UsagePurpose::Marketplace,
        max_output_tokens: Some(MAX_TOKENS),
    };
    Ok(state.suggestions.answer(ask).await?)
}

fn usage(answer: &SideAnswer) -> ProposalUsage {
    ProposalUsage {
        input_tokens: answer.input_tokens,
        output_tokens: answer.output_tokens,
    }
}

/// `POST /api/agents/{id}/marketplace/generate-description`
#[utoipa::path(post, path = "/api/agents/{agent_id}/marketplace/generate-description", tag = "marketplace", operation_id = "marketplace_generate_description", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = DescribeBody, responses((status = 200, description = "A proposed title, description, category and tags (nothing saved)", body = DescribeAnswer), (status = 422, description = "`instructions` over 1,000 characters", body = crate::error::ErrorBody<'static>), (status = 429, description = "`RATE_LIMITED` (4 proposals of the org at once) or `PROVIDER_RATE_LIMITED`", body = crate::error::ErrorBody<'static>), (status = 502, description = "`PROVIDER_AUTH`, `PROVIDER_UNAVAILABLE` or `MODEL_ERROR`", body = crate::error::ErrorBody<'static>), (status = 504, description = "`PROVIDER_TIMEOUT` (60 s)", body = crate::error::ErrorBody<'static>)))]
pub async fn generate_description(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<DescribeBody>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let instructions = body.instructions.unwrap_or_default();
    if instructions.chars().count() > MAX_INSTRUCTIONS {
        return Err(ApiError::invalid(
            "instructions",
            format!("at most {MAX_INSTRUCTIONS} characters"),
        ));
    }
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let facts = facts(&state, &agent).await?;
    let mut system = DESCRIBE_PROMPT.to_owned();
    if !instructions.trim().is_empty() {
        system.push_str("\n\n");
        system.push_str(instructions.trim());
    }
    let answer = call(&state, &caller, &agent, body.model, system, facts.prompt).await?;
    let current = Proposal {
        title: listing::title(&facts.profile, &agent).to_owned(),
        description: listing::description(&facts.profile, &agent).to_owned(),
        category: facts.profile.category.clone(),
        tags: facts.profile.tags.clone(),
    };
    let (proposal, parsed) = proposals::read_description(&answer.text, current);
    Ok(HttpResponse::Ok().json(DescribeAnswer {
        proposal,
        parsed,
        usage: usage(&answer),
        model: answer.model,
    }))
}

/// `POST /api/agents/{id}/marketplace/detect-capabilities`
#[utoipa::path(post, path = "/api/agents/{agent_id}/marketplace/detect-capabilities", tag = "marketplace", operation_id = "marketplace_detect_capabilities", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = DetectBody, responses((status = 200, description = "Proposed capabilities (nothing saved): the model's, or the deterministic list (`source: \"tools\"`)", body = DetectAnswer), (status = 422, description = "`mode` neither model nor tools", body = crate::error::ErrorBody<'static>), (status = 429, description = "`RATE_LIMITED` or `PROVIDER_RATE_LIMITED`", body = crate::error::ErrorBody<'static>), (status = 502, description = "A vendor failure", body = crate::error::ErrorBody<'static>), (status = 504, description = "`PROVIDER_TIMEOUT`", body = crate::error::ErrorBody<'static>)))]
pub async fn detect_capabilities(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<DetectBody>,
) -> Result<HttpResponse, ApiError> {
    let by_model = match body.into_inner().mode.as_deref() {
        None | Some("model") => true,
        Some("tools") => false,
        Some(_) => return Err(ApiError::invalid("mode", "must be model or tools")),
    };
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let facts = facts(&state, &agent).await?;
    let deterministic = |facts: Facts| DetectAnswer {
        capabilities: facts.offered.groups,
        source: "tools",
        model: None,
        usage: None,
    };
    if !by_model {
        return Ok(HttpResponse::Ok().json(deterministic(facts)));
    }
    let system = CAPABILITIES_PROMPT.to_owned();
    let prompt = facts.prompt.clone();
    let answer = call(&state, &caller, &agent, None, system, prompt).await?;
    let detected = match proposals::read_capabilities(&answer.text, &facts.offered) {
        Some(capabilities) => DetectAnswer {
            capabilities,
            source: "model",
            model: None,
            usage: None,
        },
        None => deterministic(facts),
    };
    Ok(HttpResponse::Ok().json(DetectAnswer {
        usage: Some(usage(&answer)),
        model: Some(answer.model),
        ..detected
    }))
}
