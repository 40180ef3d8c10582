//! Logging: a `tracing` subscriber on standard error (text or JSON) and one
//! log line per request with method, path, status, duration and request id.
//! Only the path is logged (never the query or headers), so no credential can
//! reach the log through a request.

use std::io::IsTerminal;
use std::time::Instant;

use actix_web::Error;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use tracing_subscriber::EnvFilter;

use crate::settings::{LogFormat, Settings};

/// The request ID header, echoed from the client when sane, else generated.
pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Installs the global subscriber; a second call is a no-op.
pub fn init(settings: &Settings) {
    let filter = EnvFilter::try_new(&settings.log).unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    let _ = match settings.log_format {
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
        LogFormat::Text => builder.try_init(),
    };
}

fn request_id(req: &ServiceRequest) -> String {
    req.headers()
        .get(&REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty() && v.len() <= 64 && v.bytes().all(|b| b.is_ascii_graphic()))
        .map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_owned)
}

/// Middleware: one `request` log line per request, and the `x-request-id` header.
pub async fn request_log(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let started = Instant::now();
    let method = req.method().clone();
    let path = req.path().to_owned();
    let id = request_id(&req);
    let mut response = next.call(req).await?;
    let status = response.status().as_u16();
    let duration_ms = started.elapsed().as_secs_f64() * 1000.0;
    tracing::info!(
        target: "confer::request",
        %method, %path, status, duration_ms, request_id = %id, "request"
    );
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(REQUEST_ID, value);
    }
    Ok(response)
}
