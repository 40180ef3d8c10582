//! `GET /api/analytics` (`observability.md`, "Analytics"): admins and
//! members from the org's per-day aggregates; an end user from the traces
//! of the turns it sent (so only within the trace retention).

use std::collections::HashMap;

use actix_web::{HttpResponse, web};
use confer_actors::AgentId;
use serde::Deserialize;

use crate::auth::Caller;
use crate::error::ApiError;
use crate::observability::analytics::{self, Analytics, DayEntry, Period};
use crate::state::AppState;

/// `GET /api/analytics` query.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AnalyticsQuery {
    /// `7d`, `30d` (default) or `90d`.
    period: Option<String>,
    #[serde(rename = "agentId")]
    agent_id: Option<AgentId>,
}

/// `GET /api/analytics?period=&agentId=`: totals, one entry per day, and
/// the breakdowns by agent, model and tool.
#[utoipa::path(get, path = "/api/analytics", tag = "observability", operation_id = "analytics_get", security(("bearer" = [])), params(AnalyticsQuery), responses((status = 200, description = "The period's analytics", body = Analytics), (status = 400, description = "A bad period", body = crate::error::ErrorBody<'static>)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<AnalyticsQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    let period = Period::parse(query.period.as_deref().unwrap_or("30d"), chrono::Utc::now())
        .ok_or_else(|| ApiError::BadRequest("period: one of 7d, 30d, 90d".into()))?;
    let org = caller.org_id;
    let user = (!caller.sees_whole_org()).then(|| caller.user_id());
    let entries = state
        .store
        .threads()
        .day_aggregates(org, user, period.first(), period.last)
        .await?;
    let entries: Vec<DayEntry> = entries
        .into_iter()
        .filter(|(day, id, ..)| {
            query.agent_id.is_none_or(|a| a == *id) && (period.first()..=period.last).contains(day)
        })
        .collect();
    let mut names = HashMap::new();
    for (_, id, ..) in &entries {
        if !names.contains_key(id) {
            let agent = state.store.agents().agent(org, *id).await?;
            names.insert(*id, agent.map(|a| a.name).unwrap_or_default());
        }
    }
    let answer = analytics::compute(period, entries, |id| {
        names.get(&id).cloned().unwrap_or_default()
    });
    Ok(HttpResponse::Ok().json(answer))
}
