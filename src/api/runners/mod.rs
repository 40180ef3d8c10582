//! `/api/runners`: runners and their budgets (`runners.md` Routes). Reads
//! are A M, writes A; another org's runner is 404. The field rules live in
//! `crate::runners::rules`; runs are in `runs`, their events in `events`.

use actix_web::{HttpResponse, web};
use confer_actors::{AgentId, Metadata, OrgId, RunnerId, ToolDefinition};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::extract::{JsonBody, Patch};
use crate::auth::{Admin, Member};
use crate::error::ApiError;
use crate::runners::rules::RunnerDraft;
use crate::runners::{CompletionWebhook, OutputMode, Runner};
use crate::state::AppState;
use crate::store::update::Updated;

pub mod budget;
pub mod button;
pub mod button_trigger;
pub mod deliveries;
pub mod events;
mod replay;
pub mod runs;
pub mod schedule_triggers;
pub mod suggestions;
pub mod triggers;
pub mod webhooks;

/// `GET /api/runners` query.
#[derive(Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Only the runners of this project.
    project_id: Option<String>,
}

/// `POST /api/runners` and `PATCH /api/runners/{id}` body: on a PATCH only
/// the fields present change, and `null` clears a nullable one.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunnerBody {
    #[schema(value_type = Option<uuid::Uuid>)]
    agent_id: Option<AgentId>,
    name: Option<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    description: Patch<String>,
    /// A `minijinja` template over `{input, run, now}`.
    instructions: Option<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    system_prompt_overlay: Patch<String>,
    #[schema(value_type = Option<Object>)]
    input_schema: Option<Value>,
    output_mode: Option<OutputMode>,
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    output_schema: Patch<Value>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    model: Patch<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    tool_profile: Patch<String>,
    #[schema(value_type = Option<Vec<Object>>)]
    client_tools: Option<Vec<ToolDefinition>>,
    max_concurrent_runs: Option<u32>,
    max_queued_runs: Option<u32>,
    resume_timeout_secs: Option<u64>,
    #[serde(default)]
    #[schema(value_type = Option<CompletionWebhook>)]
    completion_webhook: Patch<CompletionWebhook>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    project_id: Patch<String>,
    #[schema(value_type = Option<BTreeMap<String, String>>)]
    metadata: Option<Metadata>,
    /// PATCH: a new completion secret (the old one dies at once).
    rotate_webhook_secret: Option<bool>,
}

/// A runner, with the completion secret its call made (shown once: on
/// create with a `completionWebhook`, on a PATCH that sets a new URL or
/// has `rotateWebhookSecret`).
#[derive(Serialize, utoipa::ToSchema)]
pub struct RunnerWithSecret {
    #[serde(flatten)]
    runner: Runner,
    /// `whsec_` and base64: the Standard Webhooks key of its deliveries.
    #[serde(skip_serializing_if = "Option::is_none")]
    webhook_secret: Option<String>,
}

fn new_webhook_secret() -> Result<String, ApiError> {
    crate::webhooks::new_secret().map_err(|e| ApiError::Internal(format!("randomness: {e}")))
}

impl RunnerBody {
    fn into_draft(self) -> RunnerDraft {
        RunnerDraft {
            agent_id: self.agent_id,
            name: self.name,
            description: self.description.into_change(),
            instructions: self.instructions,
            system_prompt_overlay: self.system_prompt_overlay.into_change(),
            input_schema: self.input_schema,
            output_mode: self.output_mode,
            output_schema: self.output_schema.into_change(),
            model: self.model.into_change(),
            tool_profile: self.tool_profile.into_change(),
            client_tools: self.client_tools,
            max_concurrent_runs: self.max_concurrent_runs,
            max_queued_runs: self.max_queued_runs,
            resume_timeout_secs: self.resume_timeout_secs,
            completion_webhook: self.completion_webhook.into_change(),
            project_id: self.project_id.into_change(),
            metadata: self.metadata,
        }
    }
}

/// `{ok: true}`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Deleted {
    ok: bool,
}

/// The URL rule of a completion webhook: the outbound policy's shape check.
fn url_check(state: &AppState) -> impl Fn(&str) -> Result<(), String> + '_ {
    |url| state.outbound.policy().check_url(url).map(|_| ())
}

/// The model `runner`'s runs answer with: its own, else its agent's.
pub(super) async fn runner_model(state: &AppState, runner: &Runner) -> Result<String, ApiError> {
    if let Some(model) = &runner.model {
        return Ok(model.clone());
    }
    let (org, agent) = (runner.org_id, runner.agent_id);
    let agent = state.store.run(move |s| s.agent(org, agent)).await?;
    Ok(agent.map_or_else(|| state.default_model.clone(), |a| a.default_model))
}

/// A runner of the caller's org, deleted or not (its runs and log stay
/// readable), or 404.
pub(crate) async fn any_runner(
    state: &AppState,
    org: OrgId,
    id: RunnerId,
) -> Result<Runner, ApiError> {
    state
        .store
        .run(move |s| s.runner(org, id))
        .await?
        .ok_or_else(|| ApiError::not_found("runner"))
}

/// A live runner of the caller's org, or 404.
pub(crate) async fn live_runner(
    state: &AppState,
    org: OrgId,
    id: RunnerId,
) -> Result<Runner, ApiError> {
    Some(any_runner(state, org, id).await?)
        .filter(|r| r.deleted_at.is_none())
        .ok_or_else(|| ApiError::not_found("runner"))
}

fn stored(updated: Updated<Runner, String>) -> Result<Runner, ApiError> {
    match updated {
        Updated::Stored(runner) => Ok(runner),
        Updated::Gone => Err(ApiError::not_found("runner")),
        Updated::Refused(rule) => Err(ApiError::Validation(rule)),
    }
}

/// `GET /api/runners[?projectId=]`: the org's runners, oldest first.
#[utoipa::path(get, path = "/api/runners", tag = "runners", operation_id = "runners_list", security(("bearer" = ["member"])), params(ListQuery), responses((status = 200, description = "The org's runners", body = [Runner])))]
pub async fn list(
    state: web::Data<AppState>,
    caller: Member,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let org = caller.org_id;
    let mut runners = state.store.run(move |s| s.runners(org)).await?;
    if let Some(project) = &query.project_id {
        runners.retain(|r| r.project_id.as_ref() == Some(project));
    }
    Ok(HttpResponse::Ok().json(runners))
}

/// `POST /api/runners`.
#[utoipa::path(post, path = "/api/runners", tag = "runners", operation_id = "runners_create", security(("bearer" = ["admin"])), request_body = RunnerBody, responses((status = 201, description = "The runner (and its completion secret)", body = RunnerWithSecret), (status = 409, description = "The agent was deleted, or the org has `CONFER_MAX_RUNNERS_PER_ORG` runners", body = crate::error::ErrorBody<'static>), (status = 422, description = "A field breaks its rule (the detail names it)", body = crate::error::ErrorBody<'static>)))]
pub async fn create(
    state: web::Data<AppState>,
    caller: Admin,
    body: JsonBody<RunnerBody>,
) -> Result<HttpResponse, ApiError> {
    let org = caller.org_id;
    let runner = body
        .into_inner()
        .into_draft()
        .create(org, url_check(&state))
        .map_err(ApiError::Validation)?;
    let agent_id = runner.agent_id;
    let agent = state
        .store
        .run(move |s| s.agent(org, agent_id))
        .await?
        .ok_or_else(|| ApiError::invalid("agentId", "no such agent"))?;
    if agent.is_deleted() {
        return Err(ApiError::Conflict("agentId: the agent was deleted".into()));
    }
    crate::api::projects::require_named(&state, org, runner.project_id.as_deref()).await?;
    let max = state.settings.max_runners_per_org;
    let record = runner.clone();
    let secret = match runner.completion_webhook {
        Some(_) => Some(new_webhook_secret()?),
        None => None,
    };
    let sealed = secret.clone();
    if !state
        .store
        .write(move |s| {
            let stored = s.put_runner(&record, max)?;
            if stored && sealed.is_some() {
                s.put_runner_secret(record.org_id, record.id, sealed.as_deref())?;
            }
            Ok(stored)
        })
        .await?
    {
        return Err(ApiError::Conflict(format!(
            "the org has {max} runners (CONFER_MAX_RUNNERS_PER_ORG)"
        )));
    }
    Ok(HttpResponse::Created().json(RunnerWithSecret {
        runner,
        webhook_secret: secret,
    }))
}

/// `GET /api/runners/{id}`.
#[utoipa::path(get, path = "/api/runners/{runner_id}", tag = "runners", operation_id = "runners_get", security(("bearer" = ["member"])), params(("runner_id" = uuid::Uuid, Path, description = "The runner's id")), responses((status = 200, description = "The runner", body = Runner), (status = 404, description = "No such runner in the org", body = crate::error::ErrorBody<'static>)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<RunnerId>,
) -> Result<HttpResponse, ApiError> {
    let runner = live_runner(&state, caller.org_id, path.into_inner()).await?;
    Ok(HttpResponse::Ok().json(runner))
}

/// `PATCH /api/runners/{id}`.
#[utoipa::path(patch, path = "/api/runners/{runner_id}", tag = "runners", operation_id = "runners_update", security(("bearer" = ["admin"])), params(("runner_id" = uuid::Uuid, Path, description = "The runner's id")), request_body = RunnerBody, responses((status = 200, description = "The runner as changed (and a new completion secret)", body = RunnerWithSecret), (status = 404, description = "No such runner in the org", body = crate::error::ErrorBody<'static>), (status = 422, description = "A field breaks its rule (the detail names it)", body = crate::error::ErrorBody<'static>)))]
pub async fn update(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<RunnerId>,
    body: JsonBody<RunnerBody>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = (caller.org_id, path.into_inner());
    let body = body.into_inner();
    // Checked against the stored runner first: a refused PATCH stores nothing.
    let current = live_runner(&state, org, id).await?;
    let rotate = body.rotate_webhook_secret == Some(true);
    let old_url = current.completion_webhook.as_ref().map(|h| h.url.clone());
    let current_project = current.project_id.clone();
    let draft = body.into_draft();
    let patched = draft
        .update(current, url_check(&state))
        .map_err(ApiError::Validation)?;
    if patched.project_id != current_project {
        crate::api::projects::require_named(&state, org, patched.project_id.as_deref()).await?;
    }
    // A new model must have a price if the budget limits cost.
    let model = runner_model(&state, &patched).await?;
    let budget = state.store.run(move |s| s.runner_budget(org, id)).await?;
    if let Some(refusal) = state.runs.unpriced(&budget, &model) {
        return Err(ApiError::invalid("model", refusal));
    }
    // The URL decides where the secret's signatures go: a new URL gets
    // a new secret, and no URL keeps none.
    let new_url = patched.completion_webhook.as_ref().map(|h| h.url.clone());
    let secret = match &new_url {
        Some(_) if rotate || new_url != old_url => Some(new_webhook_secret()?),
        _ => None,
    };
    let (sealed, forget) = (secret.clone(), new_url.is_none());
    let updated = state
        .store
        .write(move |s| {
            let updated = s.update_runner(org, id, |stored| {
                if stored.version + 1 != patched.version {
                    // Changed meanwhile: the caller's PATCH was checked
                    // against an older runner.
                    return Err("the runner changed meanwhile; send the PATCH again".to_owned());
                }
                Ok(patched.clone())
            })?;
            if matches!(updated, Updated::Stored(_)) && (sealed.is_some() || forget) {
                s.put_runner_secret(org, id, sealed.as_deref())?;
            }
            Ok(updated)
        })
        .await?;
    Ok(HttpResponse::Ok().json(RunnerWithSecret {
        runner: stored(updated)?,
        webhook_secret: secret,
    }))
}

/// `DELETE /api/runners/{id}`: soft; its waiting runs are cancelled, its
/// running ones stopped; its runs stay readable.
#[utoipa::path(delete, path = "/api/runners/{runner_id}", tag = "runners", operation_id = "runners_delete", security(("bearer" = ["admin"])), params(("runner_id" = uuid::Uuid, Path, description = "The runner's id")), responses((status = 200, description = "Deleted", body = Deleted), (status = 404, description = "No such runner in the org", body = crate::error::ErrorBody<'static>)))]
pub async fn delete(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<RunnerId>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = (caller.org_id, path.into_inner());
    let running = state
        .store
        .write(move |s| s.delete_runner(org, id))
        .await?
        .ok_or_else(|| ApiError::not_found("runner"))?;
    for run in running {
        let _ = state.runs.cancel(org, run.id).await;
    }
    Ok(HttpResponse::Ok().json(Deleted { ok: true }))
}
