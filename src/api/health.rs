//! `GET /healthz` (liveness) and `GET /readyz` (readiness), no
//! authentication (`operations.md`).

use actix_web::{HttpResponse, web};
use serde_json::{Value, json};

use crate::error::ApiError;
use crate::state::AppState;

/// 200 `{"status":"ok"}`.
pub async fn healthz() -> web::Json<Value> {
    web::Json(json!({"status": "ok"}))
}

/// 200 `{"status":"ready"}` while the server takes sends; 503
/// `SHUTTING_DOWN` once a shutdown began, 503 `STORE_UNAVAILABLE` after a
/// store failure (the cause is in the log, not here).
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
    Ok(HttpResponse::Ok().json(json!({"status": "ready"})))
}
