//! `/api/agents`: create, read, update and (soft) delete agents.

use std::collections::BTreeMap;

use actix_web::{HttpResponse, web};
use chrono::Utc;
use confer_actors::{Agent, AgentId, ProjectId, RuntimeProvider, ToolProfile};
use serde::{Deserialize, Serialize};

use super::extract::{JsonBody, Patch};
use super::timestamp;
use crate::auth::{Admin, Caller};
use crate::error::{ApiError, stored};
use crate::state::AppState;

const MAX_NAME_CHARS: usize = 200;

/// The agent as every endpoint returns it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct AgentView {
    id: String,
    org_id: String,
    name: String,
    description: String,
    default_model: String,
    stable_preamble: String,
    tool_profiles: Option<BTreeMap<String, ToolProfile>>,
    default_profile: Option<String>,
    runtime_provider: RuntimeProvider,
    /// The project it belongs to, else null (membership grants nothing on
    /// agents).
    project_id: Option<String>,
    created_at: String,
    updated_at: String,
    /// `[]`, or the agent's publication (`publishing.md` §8).
    published_chats: Vec<super::publish::PublishedChat>,
}

impl From<Agent> for AgentView {
    fn from(agent: Agent) -> Self {
        Self {
            id: agent.id.to_string(),
            org_id: agent.org_id.to_string(),
            name: agent.name,
            description: agent.description,
            default_model: agent.default_model,
            stable_preamble: agent.stable_preamble,
            tool_profiles: agent.tool_profiles,
            default_profile: agent.default_profile,
            runtime_provider: agent.runtime_provider,
            project_id: agent.project_id.map(|id| id.to_string()),
            created_at: timestamp(agent.created_at),
            updated_at: timestamp(agent.updated_at),
            published_chats: Vec::new(),
        }
    }
}

/// `POST /api/agents` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateAgent {
    name: String,
    description: Option<String>,
    stable_preamble: Option<String>,
    default_model: Option<String>,
    /// A project of the org.
    project_id: Option<ProjectId>,
}

/// `PATCH /api/agents/{id}` body: only the fields present change.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateAgent {
    name: Option<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    description: Patch<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    stable_preamble: Patch<String>,
    default_model: Option<String>,
    #[serde(default)]
    #[schema(value_type = Option<BTreeMap<String, ToolProfile>>)]
    tool_profiles: Patch<BTreeMap<String, ToolProfile>>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    default_profile: Patch<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    runtime_provider: Patch<String>,
    /// A project of the org, or null for none.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    project_id: Patch<ProjectId>,
}

/// `GET /api/agents` query.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Only the agents of this project.
    #[serde(rename = "projectId")]
    project_id: Option<ProjectId>,
}

/// The rules an agent must satisfy after a create or an update (422).
pub(crate) fn validate(agent: &Agent) -> Result<(), ApiError> {
    let name = agent.name.trim();
    if name.is_empty() {
        return Err(ApiError::invalid("name", "must not be empty"));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(ApiError::invalid(
            "name",
            format!("at most {MAX_NAME_CHARS} characters"),
        ));
    }
    if agent.default_model.trim().is_empty() {
        return Err(ApiError::invalid("defaultModel", "must not be empty"));
    }
    for (profile, rules) in agent.tool_profiles.iter().flatten() {
        if profile.trim().is_empty() {
            return Err(ApiError::invalid(
                "toolProfiles",
                "profile names must not be empty",
            ));
        }
        let patterns = rules.allow.iter().chain(rules.deny.iter().flatten());
        if patterns.into_iter().any(|p| p.trim().is_empty()) {
            return Err(ApiError::invalid(
                &format!("toolProfiles.{profile}"),
                "tool patterns must not be empty",
            ));
        }
    }
    if let Some(default) = &agent.default_profile {
        let known = agent
            .tool_profiles
            .as_ref()
            .is_some_and(|p| p.contains_key(default));
        if !known {
            return Err(ApiError::invalid(
                "defaultProfile",
                "must name one of toolProfiles",
            ));
        }
    }
    Ok(())
}

/// An agent of the caller's org that is not deleted (else 404).
pub async fn live_agent(state: &AppState, caller: &Caller, id: AgentId) -> Result<Agent, ApiError> {
    state
        .store
        .agents()
        .agent(caller.org_id, id)
        .await?
        .filter(|agent| !agent.is_deleted())
        .ok_or_else(|| ApiError::not_found("agent"))
}

async fn save(state: &AppState, agent: Agent) -> Result<Agent, ApiError> {
    state.store.agents().put_agent(agent.clone()).await?;
    Ok(agent)
}

/// The views of `agents` (all of one org), each with its publication
/// (read in one store call).
async fn views(state: &AppState, agents: Vec<Agent>) -> Result<Vec<AgentView>, ApiError> {
    let Some(org) = agents.first().map(|a| a.org_id) else {
        return Ok(Vec::new());
    };
    let ids = agents.iter().map(|a| a.id).collect();
    let publications = state.store.publications().publications_of(org, ids).await?;
    let publications = publications.into_iter().chain(std::iter::repeat(None));
    Ok(agents
        .into_iter()
        .zip(publications)
        .map(|(agent, publication)| {
            let mut view = AgentView::from(agent);
            view.published_chats = publication
                .iter()
                .map(|p| super::publish::PublishedChat::of(state, p))
                .collect();
            view
        })
        .collect())
}

/// The view of one agent, with its publication.
async fn view(state: &AppState, agent: Agent) -> Result<AgentView, ApiError> {
    let mut views = views(state, vec![agent]).await?;
    views
        .pop()
        .ok_or_else(|| ApiError::Internal("an agent's view went missing".into()))
}

/// `GET /api/agents`
#[utoipa::path(get, path = "/api/agents", tag = "agents", operation_id = "agents_list", security(("bearer" = [])), params(ListQuery), responses((status = 200, description = "The org's agents (with `projectId`, that project's)", body = Vec<AgentView>)))]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let org = caller.org_id;
    let project = query.project_id;
    let mut agents = state.store.agents().agents(org).await?;
    if project.is_some() {
        agents.retain(|agent| agent.project_id == project);
    }
    Ok(HttpResponse::Ok().json(views(&state, agents).await?))
}

/// `POST /api/agents`: 201 with the agent.
#[utoipa::path(post, path = "/api/agents", tag = "agents", operation_id = "agents_create", security(("bearer" = ["admin"])), request_body = CreateAgent, responses((status = 201, description = "The agent", body = AgentView)))]
pub async fn create(
    state: web::Data<AppState>,
    caller: Admin,
    body: JsonBody<CreateAgent>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let now = Utc::now();
    let agent = Agent {
        id: AgentId::new(),
        org_id: caller.org_id,
        name: body.name,
        description: body.description.unwrap_or_default(),
        stable_preamble: body.stable_preamble.unwrap_or_default(),
        default_model: body
            .default_model
            .unwrap_or_else(|| state.default_model.clone()),
        tool_profiles: None,
        default_profile: None,
        runtime_provider: RuntimeProvider::default(),
        project_id: body.project_id,
        created_at: now,
        updated_at: now,
        deleted_at: None,
    };
    validate(&agent)?;
    super::projects::require(&state, agent.org_id, agent.project_id).await?;
    let agent = save(&state, agent).await?;
    Ok(HttpResponse::Created().json(AgentView::from(agent)))
}

/// `GET /api/agents/{id}`
#[utoipa::path(get, path = "/api/agents/{agent_id}", tag = "agents", operation_id = "agents_get", security(("bearer" = [])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), responses((status = 200, description = "The agent", body = AgentView)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<AgentId>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    Ok(HttpResponse::Ok().json(view(&state, agent).await?))
}

/// `PATCH /api/agents/{id}`: applied with compare-and-swap, so a concurrent
/// delete is never undone (the update then answers 404).
#[utoipa::path(patch, path = "/api/agents/{agent_id}", tag = "agents", operation_id = "agents_update", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = UpdateAgent, responses((status = 200, description = "The updated agent", body = AgentView)))]
pub async fn update(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<UpdateAgent>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = (caller.org_id, path.into_inner());
    let body = body.into_inner();
    if let Patch::Value(project) = body.project_id {
        super::projects::require(&state, org, Some(project)).await?;
    }
    let outcome = state
        .store
        .agents()
        .update_agent(org, id, Box::new(move |agent| body.apply(agent)))
        .await?;
    let agent = stored(outcome, "agent")?;
    Ok(HttpResponse::Ok().json(view(&state, agent).await?))
}

impl UpdateAgent {
    /// The agent with the present fields changed, checked (422). Re-runnable:
    /// a compare-and-swap retry applies it again to the newer record.
    fn apply(&self, mut agent: Agent) -> Result<Agent, ApiError> {
        if let Some(name) = &self.name {
            agent.name.clone_from(name);
        }
        if let Some(description) = self.description.clone().into_change() {
            agent.description = description.unwrap_or_default();
        }
        if let Some(preamble) = self.stable_preamble.clone().into_change() {
            agent.stable_preamble = preamble.unwrap_or_default();
        }
        if let Some(model) = &self.default_model {
            agent.default_model.clone_from(model);
        }
        if let Some(profiles) = self.tool_profiles.clone().into_change() {
            agent.tool_profiles = profiles;
        }
        if let Some(profile) = self.default_profile.clone().into_change() {
            agent.default_profile = profile;
        }
        if let Some(runtime) = self.runtime_provider.clone().into_change() {
            agent.runtime_provider = match runtime {
                None => RuntimeProvider::default(),
                Some(name) => RuntimeProvider::parse(&name).ok_or_else(|| {
                    ApiError::invalid("runtimeProvider", "must be `e2b` or `daytona`")
                })?,
            };
        }
        if let Some(project) = self.project_id.clone().into_change() {
            agent.project_id = project;
        }
        validate(&agent)?;
        agent.updated_at = Utc::now();
        Ok(agent)
    }
}

/// `DELETE /api/agents/{id}`: soft delete; the agent's threads stay readable.
/// Its publication goes with it (`publishing.md` §7): the slug is free and
/// its page gone.
#[utoipa::path(delete, path = "/api/agents/{agent_id}", tag = "agents", operation_id = "agents_delete", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), responses((status = 200, description = "Deleted", body = super::Ok)))]
pub async fn delete(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = (caller.org_id, path.into_inner());
    let outcome = state
        .store
        .agents()
        .update_agent(
            org,
            id,
            Box::new(|mut agent| {
                let now = Utc::now();
                agent.deleted_at = Some(now);
                agent.updated_at = now;
                Ok(agent)
            }),
        )
        .await?;
    stored(outcome, "agent")?;
    // Its marketplace profile, avatar and listing go with it; agents made
    // from the listing stay.
    state
        .store
        .marketplace()
        .delete_marketplace_profile(org, id)
        .await?;
    // Its channels too (their threads stay): a kind PostgreSQL does not
    // keep yet, so none there.
    state
        .store
        .write_or_default(move |s| s.delete_agent_channels(org, id, super::channels::cleanup_of))
        .await?;
    let unpublished = state.store.publications().delete_publication(org, id);
    if let Some(publication) = unpublished.await? {
        super::publish::unpublished(&state, &publication).await?;
    }
    // Its memories go with it: hidden at once, purged after; its
    // scheduled tasks at once (the scheduler also drops those of a
    // deleted agent, should a crash come between).
    let schedules = state.store.schedules();
    schedules.delete_scheduled_tasks(org, id).await?;
    state
        .store
        .memories()
        .forget_memories(org, Some(id), None)
        .await?;
    state.memories.forgotten();
    // Its runners go as a runner DELETE takes them (runners.md Runs §10).
    let running = state
        .store
        .write_or_default(move |s| {
            let mut running = Vec::new();
            for runner in s.runners(org)?.into_iter().filter(|r| r.agent_id == id) {
                running.extend(s.delete_runner(org, runner.id)?.unwrap_or_default());
            }
            Ok(running)
        })
        .await?;
    for run in running {
        let _ = state.runs.cancel(org, run.id).await;
    }
    let scope = crate::knowledge::Scope::Agent(id);
    if state
        .store
        .documents()
        .delete_scope_documents(org, scope)
        .await?
        > 0
    {
        state.knowledge.deleted();
    }
    Ok(HttpResponse::Ok().json(super::Ok { ok: true }))
}
