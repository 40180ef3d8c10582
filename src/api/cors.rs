//! CORS (`operations.md`): off by default; `CONFER_CORS_ORIGINS` (comma-
//! separated origins) lets browser clients of those origins call the API,
//! preflight included, and read `X-Request-Id`, `Retry-After` and the
//! rate-limit headers.

use actix_cors::Cors;
use actix_web::http::{Method, header};
use actix_web::middleware::Condition;

/// Headers a browser client may read from an answer.
const EXPOSED: [&str; 5] = [
    "x-request-id",
    "retry-after",
    "ratelimit-limit",
    "ratelimit-remaining",
    "ratelimit-reset",
];

/// The CORS middleware for `origins` (empty: off, answers carry no CORS
/// headers and preflights are not answered).
pub fn cors(origins: &str) -> Condition<Cors> {
    let origins: Vec<&str> = origins
        .split(',')
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .collect();
    let mut cors = Cors::default()
        .allowed_methods([
            Method::GET,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
        ])
        .allowed_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            header::ACCEPT,
            header::HeaderName::from_static("idempotency-key"),
            header::HeaderName::from_static("last-event-id"),
            header::HeaderName::from_static("x-request-id"),
        ])
        .expose_headers(EXPOSED)
        .max_age(3600);
    for origin in &origins {
        cors = cors.allowed_origin(origin);
    }
    Condition::new(!origins.is_empty(), cors)
}
