//! `/api/runners/{id}/suggestions` (`runners.md` "Suggestions"): read
//! (A M) and replace (A) a runner's suggestions. Field rules:
//! `crate::runners::suggestions`.

use actix_web::{HttpResponse, web};
use chrono::Utc;
use confer_actors::RunnerId;
use serde::Deserialize;

use super::live_runner;
use crate::api::extract::JsonBody;
use crate::auth::{Admin, Member};
use crate::error::ApiError;
use crate::runners::suggestions::{RunnerSuggestions, SuggestionBody, SuggestionSource, check};
use crate::state::AppState;

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
