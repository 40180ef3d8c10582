//! `GET /api/runners/{id}/deliveries` (`runners.md` Completion webhooks):
//! the delivery log of a runner's completion webhook, newest first.

use actix_web::{HttpResponse, web};
use confer_actors::{RunId, RunnerId};
use serde::Deserialize;

use crate::api::{page_limit, parse_cursor, timestamp};
use crate::auth::Member;
use crate::error::ApiError;
use crate::state::AppState;
use crate::webhooks::Delivery;

/// `GET …/deliveries` query.
#[derive(Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ListDeliveries {
    /// Only this run's deliveries.
    #[param(value_type = Option<uuid::Uuid>)]
    run_id: Option<RunId>,
    /// 50 by default, at most 200.
    limit: Option<u32>,
    /// `X-Next-Cursor` of the previous page.
    cursor: Option<String>,
}

/// `GET /api/runners/{id}/deliveries`
#[utoipa::path(get, path = "/api/runners/{runner_id}/deliveries", tag = "runners", operation_id = "deliveries_list", security(("bearer" = ["member"])), params(("runner_id" = uuid::Uuid, Path, description = "The runner's id"), ListDeliveries), responses((status = 200, description = "The deliveries, newest first; `X-Next-Cursor` when more follow", body = [Delivery])))]
pub async fn list(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<RunnerId>,
    query: web::Query<ListDeliveries>,
) -> Result<HttpResponse, ApiError> {
    let (org, runner) = (caller.org_id, path.into_inner());
    // A deleted runner's log stays readable, as its runs do.
    super::any_runner(&state, org, runner).await?;
    let limit = page_limit(query.limit, 50, 200);
    let before = parse_cursor(query.cursor.as_deref())?;
    let run = query.run_id;
    let page = state
        .store
        .run(move |s| {
            s.deliveries(org, runner, before, limit, |d| {
                run.is_none_or(|r| d.run_id == r)
            })
        })
        .await?;
    let mut response = HttpResponse::Ok();
    if let Some(next) = page.next_cursor {
        response.insert_header(("X-Next-Cursor", timestamp(next)));
    }
    Ok(response.json(page.items))
}
