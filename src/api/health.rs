//! `GET /healthz` (liveness) and `GET /readyz` (readiness), no
//! authentication (`operations.md`).

use actix_web::{HttpResponse, web};
use serde::Serialize;

use crate::error::ApiError;
use crate::state::AppState;

/// `{"status": "ok" | "ready"}`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Status {
    status: &'static str,
}

/// 200 `{"status":"ok"}`.
#[utoipa::path(get, path = "/healthz", tag = "operations", operation_id = "health_healthz", security(()), responses((status = 200, description = "The process is alive", body = Status)))]
pub async fn healthz() -> web::Json<Status> {
    web::Json(Status { status: "ok" })
}

/// 200 `{"status":"ready"}` while the server takes sends; 503
/// `SHUTTING_DOWN` once a shutdown began, 503 `STORE_UNAVAILABLE` after a
/// store failure (the cause is in the log, not here).
#[utoipa::path(get, path = "/readyz", tag = "operations", operation_id = "health_readyz", security(()), responses((status = 200, description = "The store is writable and sends are taken", body = Status), (status = 503, description = "`SHUTTING_DOWN` or `STORE_UNAVAILABLE`", body = crate::error::ErrorBody<'static>)))]
pub async fn readyz(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    if state.runtime.is_closing() {
        return Err(ApiError::Turn {
            code: confer_actors::codes::SHUTTING_DOWN,
            detail: "the server is shutting down".into(),
        });
    }
    if state.store.failure().is_some() {
        return Err(ApiError::StoreUnavailable(
            "a write to the store failed; restart the server".into(),
        ));
    }
    Ok(HttpResponse::Ok().json(Status { status: "ready" }))
}
