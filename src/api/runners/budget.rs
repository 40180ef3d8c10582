//! `/api/runners/{id}/budget` (`runners.md` Budgets): a runner's limits
//! and today's spend; PUT changes the limits present by compare-and-swap.

use actix_web::{HttpResponse, web};
use chrono::Utc;
use confer_actors::RunnerId;
use serde::{Deserialize, Serialize};

use super::{live_runner, runner_model};
use crate::api::extract::{JsonBody, Patch};
use crate::auth::{Admin, Member};
use crate::error::ApiError;
use crate::runners::{Budget, Runner};
use crate::state::AppState;
use crate::store::update::Updated;

/// A budget (`GET/PUT …/budget`), with today's spend.
#[derive(Serialize, utoipa::ToSchema)]
pub struct BudgetView {
    #[schema(value_type = uuid::Uuid)]
    runner_id: RunnerId,
    #[serde(flatten)]
    budget: Budget,
    today: Today,
}

/// The runner's spend of the current UTC day.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Today {
    day: String,
    cost_usd: f64,
    runs: u64,
}

/// `PUT …/budget` body: any limit, `null` clears it.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BudgetBody {
    #[serde(default)]
    #[schema(value_type = Option<u64>)]
    max_tokens: Patch<u64>,
    #[serde(default)]
    #[schema(value_type = Option<f64>)]
    max_cost_usd: Patch<f64>,
    #[serde(default)]
    #[schema(value_type = Option<u32>)]
    max_steps: Patch<u32>,
    #[serde(default)]
    #[schema(value_type = Option<u64>)]
    max_duration_secs: Patch<u64>,
    #[serde(default)]
    #[schema(value_type = Option<f64>)]
    daily_cost_usd: Patch<f64>,
}

/// The budget with the runs started since the UTC day began and their
/// cost.
async fn budget_view(state: &AppState, runner: &Runner) -> Result<BudgetView, ApiError> {
    let (org, id) = (runner.org_id, runner.id);
    let budget = state.store.run(move |s| s.runner_budget(org, id)).await?;
    let midnight = Utc::now()
        .date_naive()
        .and_hms_opt(0, 0, 0)
        .map(|t| t.and_utc())
        .unwrap_or_else(Utc::now);
    let day = state
        .store
        .run(move |s| s.runner_day(org, id, midnight))
        .await?;
    let (runs, cost_usd) = (day.runs, day.cost_usd);
    Ok(BudgetView {
        runner_id: runner.id,
        budget,
        today: Today {
            day: midnight.format("%Y-%m-%d").to_string(),
            cost_usd,
            runs,
        },
    })
}

/// `GET /api/runners/{id}/budget`.
#[utoipa::path(get, path = "/api/runners/{runner_id}/budget", tag = "runners", operation_id = "runners_budget_get", security(("bearer" = ["member"])), params(("runner_id" = uuid::Uuid, Path, description = "The runner's id")), responses((status = 200, description = "The budget", body = BudgetView)))]
pub async fn get_budget(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<RunnerId>,
) -> Result<HttpResponse, ApiError> {
    let runner = live_runner(&state, caller.org_id, path.into_inner()).await?;
    Ok(HttpResponse::Ok().json(budget_view(&state, &runner).await?))
}

fn positive<T: PartialOrd + Default + Copy>(
    field: &str,
    patch: Patch<T>,
    current: Option<T>,
) -> Result<Option<T>, String> {
    match patch.into_change() {
        None => Ok(current),
        Some(None) => Ok(None),
        Some(Some(v)) if v > T::default() => Ok(Some(v)),
        Some(Some(_)) => Err(format!("{field}: must be positive (null clears it)")),
    }
}

/// `PUT /api/runners/{id}/budget`: the limits present change.
#[utoipa::path(put, path = "/api/runners/{runner_id}/budget", tag = "runners", operation_id = "runners_budget_put", security(("bearer" = ["admin"])), params(("runner_id" = uuid::Uuid, Path, description = "The runner's id")), request_body = BudgetBody, responses((status = 200, description = "The budget", body = BudgetView), (status = 422, description = "A limit is not positive", body = crate::error::ErrorBody<'static>)))]
pub async fn put_budget(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<RunnerId>,
    body: JsonBody<BudgetBody>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = (caller.org_id, path.into_inner());
    let body = body.into_inner();
    let runner = live_runner(&state, org, id).await?;
    let model = runner_model(&state, &runner).await?;
    let runs = std::sync::Arc::clone(&state.runs);
    let change = move |current: Budget| {
        let budget = Budget {
            max_tokens: positive("maxTokens", body.max_tokens.clone(), current.max_tokens)?,
            max_cost_usd: positive(
                "maxCostUsd",
                body.max_cost_usd.clone(),
                current.max_cost_usd,
            )?,
            max_steps: positive("maxSteps", body.max_steps.clone(), current.max_steps)?,
            max_duration_secs: positive(
                "maxDurationSecs",
                body.max_duration_secs.clone(),
                current.max_duration_secs,
            )?,
            daily_cost_usd: positive(
                "dailyCostUsd",
                body.daily_cost_usd.clone(),
                current.daily_cost_usd,
            )?,
        };
        match runs.unpriced(&budget, &model) {
            Some(refusal) => Err(refusal),
            None => Ok(budget),
        }
    };
    match state
        .store
        .write(move |s| s.update_runner_budget(org, id, change))
        .await?
    {
        Updated::Refused(rule) => return Err(ApiError::Validation(rule)),
        Updated::Gone | Updated::Stored(_) => {}
    }
    Ok(HttpResponse::Ok().json(budget_view(&state, &runner).await?))
}
