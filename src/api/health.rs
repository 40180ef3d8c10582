//! `GET /healthz`: liveness, no authentication.

use actix_web::web;
use serde_json::{Value, json};

/// 200 `{"status":"ok"}`.
pub async fn healthz() -> web::Json<Value> {
    web::Json(json!({"status": "ok"}))
}
