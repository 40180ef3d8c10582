//! `/api/runners/{id}/suggestions` (`runners.md` "Suggestions"): read
//! (A M), replace (A) and generate (A) a runner's suggestions. Field rules:
//! `crate::runners::suggestions`; the generation's call:
//! `crate::runners::generate`.

use actix_web::{HttpResponse, web};
use chrono::Utc;
use confer_actors::RunnerId;
use serde::Deserialize;

use super::live_runner;
use crate::api::extract::JsonBody;
use crate::auth::{Admin, Member};
use crate::error::ApiError;
use crate::runners::generate::{Asked, generate as generate_for};
use crate::runners::suggestions::{RunnerSuggestions, SuggestionBody, SuggestionSource, check};
use crate::state::AppState;
use crate::suggestions::requested_count;

/// `PUT …/suggestions` body.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct PutSuggestions {
    /// At most 10; `[]` clears them.
    suggestions: Vec<SuggestionBody>,
}

/// `GET /api/runners/{id}/suggestions`
#[utoipa::path(get, path = "/api/runners/{runner_id}/suggestions", tag = "runners", operation_id = "runner_suggestions_get", security(("bearer" = ["member"])), params(("runner_id" = uuid::Uuid, Path, description = "The runner's id")), responses((status = 200, description = "The runner's suggestions (`source: null` before any were set)", body = RunnerSuggestions)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<RunnerId>,
) -> Result<HttpResponse, ApiError> {
    let runner = live_runner(&state, caller.org_id, path.into_inner()).await?;
    let (org, id) = (caller.org_id, runner.id);
    let suggestions = state
        .store
        .run(move |s| s.runner_suggestions(org, id))
        .await?;
    Ok(HttpResponse::Ok().json(suggestions))
}

/// `PUT /api/runners/{id}/suggestions`: replaces them (`source:
/// "manual"`); a bad item is 422 naming `suggestions[i].field`.
#[utoipa::path(put, path = "/api/runners/{runner_id}/suggestions", tag = "runners", operation_id = "runner_suggestions_put", security(("bearer" = ["admin"])), params(("runner_id" = uuid::Uuid, Path, description = "The runner's id")), request_body = PutSuggestions, responses((status = 200, description = "The suggestions as stored", body = RunnerSuggestions), (status = 422, description = "`VALIDATION_ERROR` naming `suggestions[i].label` or `suggestions[i].input/…`", body = crate::error::ErrorBody<'static>)))]
pub async fn put(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<RunnerId>,
    body: JsonBody<PutSuggestions>,
) -> Result<HttpResponse, ApiError> {
    let runner = live_runner(&state, caller.org_id, path.into_inner()).await?;
    let items = body.into_inner().suggestions;
    let suggestions = check(items, &runner.input_schema)
        .map_err(|refusal| ApiError::InvalidFields(vec![refusal]))?;
    let record = RunnerSuggestions {
        runner_id: runner.id,
        suggestions,
        source: Some(SuggestionSource::Manual),
        model: None,
        updated_at: Some(Utc::now()),
    };
    let (org, stored) = (caller.org_id, record.clone());
    state
        .store
        .write(move |s| s.put_runner_suggestions(org, &stored))
        .await?;
    Ok(HttpResponse::Ok().json(record))
}

/// `POST …/suggestions` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GenerateSuggestions {
    /// 1–10 (4).
    count: Option<usize>,
    /// Store them as the runner's suggestions (`source: "generated"`).
    #[serde(default)]
    save: bool,
}

/// `POST /api/runners/{id}/suggestions`: one model call writes up to
/// `count` suggestions valid for the input schema; `save` stores them.
#[utoipa::path(post, path = "/api/runners/{runner_id}/suggestions", tag = "runners", operation_id = "runner_suggestions_generate", security(("bearer" = ["admin"])), params(("runner_id" = uuid::Uuid, Path, description = "The runner's id")), request_body = GenerateSuggestions, responses((status = 200, description = "The generated suggestions (`source: \"generated\"`), stored when `save`", body = RunnerSuggestions), (status = 422, description = "`VALIDATION_ERROR`: `count` outside 1–10", body = crate::error::ErrorBody<'static>), (status = 429, description = "`PROVIDER_RATE_LIMITED`", body = crate::error::ErrorBody<'static>), (status = 502, description = "`MODEL_ERROR` (no valid suggestion in the answer) or another vendor failure", body = crate::error::ErrorBody<'static>), (status = 504, description = "`PROVIDER_TIMEOUT` (60 s)", body = crate::error::ErrorBody<'static>)))]
pub async fn generate(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<RunnerId>,
    body: JsonBody<GenerateSuggestions>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let count = requested_count(body.count)?;
    let runner = live_runner(&state, caller.org_id, path.into_inner()).await?;
    let (org, agent_id) = (caller.org_id, runner.agent_id);
    let agent = state.store.run(move |s| s.agent(org, agent_id)).await?;
    let model = runner
        .model
        .clone()
        .or(agent.map(|a| a.default_model))
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| state.default_model.clone());
    let asked = Asked {
        user_id: &caller.user_id(),
        model: &model,
        count,
    };
    let (suggestions, model) = generate_for(&state.suggestions, &runner, asked).await?;
    let record = RunnerSuggestions {
        runner_id: runner.id,
        suggestions,
        source: Some(SuggestionSource::Generated),
        model: Some(model),
        updated_at: Some(Utc::now()),
    };
    if body.save {
        let stored = record.clone();
        state
            .store
            .write(move |s| s.put_runner_suggestions(org, &stored))
            .await?;
    }
    Ok(HttpResponse::Ok().json(record))
}
