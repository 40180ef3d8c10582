//! `GET /metrics` (`observability.md`, "Metrics"): Prometheus text format.
//! No credentials unless `metrics_token` is set; then that bearer token,
//! compared in constant time (401 with the JSON error body otherwise).

use actix_web::http::header::AUTHORIZATION;
use actix_web::{HttpRequest, HttpResponse, web};
use secrecy::ExposeSecret;

use crate::error::ApiError;
use crate::observability::metrics::render;
use crate::state::AppState;

/// The metric families, for Prometheus to scrape.
#[utoipa::path(get, path = "/metrics", tag = "operations", operation_id = "metrics_scrape", security(()), responses((status = 200, description = "Prometheus text format (0.0.4)", content_type = "text/plain", body = String), (status = 401, description = "metrics_token is set and the request does not carry it", body = crate::error::ErrorBody<'static>)))]
pub async fn scrape(
    state: web::Data<AppState>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    if let Some(token) = &state.settings.metrics_token {
        let given = request
            .headers()
            .get(AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or_default();
        let want = token.expose_secret().as_bytes();
        if !constant_time_eq(given.as_bytes(), want) {
            return Err(ApiError::Unauthorized(
                "a valid metrics token is required".into(),
            ));
        }
    }
    // Read at each scrape: the store is where every instance is.
    if state.metrics.is_some()
        && let Ok(instances) = state.store.run(|s| s.all_instances()).await
    {
        crate::computer::metrics::set_instances(&instances);
    }
    let body = match &state.metrics {
        Some(handle) => render(handle, state.traces.len(), state.runtime.live_threads()),
        None => String::new(),
    };
    Ok(HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(body))
}

/// Whether `a == b`, in time that depends only on their lengths.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}
