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
use tracing_subscriber::filter::LevelFilter;

use crate::settings::{LogFormat, Settings};

/// The request ID header, echoed from the client when sane, else generated.
pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Targets whose lines are never written above debug, whatever `CONFER_LOG`
/// says: the store's trace lines print keys and values (signing secrets
/// among them), so `sled` and `pagecache` stop at debug; the HTTP library
/// reports every malformed request a client sends as an error, so any client
/// could trip the operator's alerts: `actix_http` is off (its lines carry
/// nothing Confer's own request log does not); the MCP SDK prints every
/// message it sends and receives (tool arguments and results) at debug and
/// trace, and each session's start at info, so `rmcp` stops at warn.
const CAPS: [(&str, LevelFilter); 4] = [
    ("sled", LevelFilter::DEBUG),
    ("pagecache", LevelFilter::DEBUG),
    ("actix_http", LevelFilter::OFF),
    ("rmcp", LevelFilter::WARN),
];

/// The filter of `CONFER_LOG` with the caps: the user's directives for a
/// capped target are dropped and the cap added. Kept a plain `EnvFilter` (no
/// per-layer filter) so its level hint stays exact: with no hint, every
/// `trace!` of the HTTP and store libraries would be built and dispatched
/// (measured: +60% CPU per streamed token).
fn capped_filter(directives: &str) -> EnvFilter {
    let kept: Vec<&str> = directives
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .filter(|d| {
            !CAPS.iter().any(|(target, _)| {
                d.starts_with(target)
                    && !d[target.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
            })
        })
        .collect();
    let mut filter = EnvFilter::try_new(kept.join(",")).unwrap_or_else(|_| EnvFilter::new("info"));
    // A cap never raises the filter's own level (that would enable more
    // callsites than the operator asked for).
    let asked = filter.max_level_hint().unwrap_or(LevelFilter::TRACE);
    for (target, cap) in CAPS {
        let level = cap.min(asked);
        if let Ok(directive) = format!("{target}={level}").parse() {
            filter = filter.add_directive(directive);
        }
    }
    filter
}

/// Installs the global subscriber; a second call is a no-op.
pub fn init(settings: &Settings) {
    let builder = tracing_subscriber::fmt()
        .with_env_filter(capped_filter(&settings.log))
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

/// The path as logged: a webhook's secret path token shows as its
/// prefix (`runners.md` Objects).
pub fn loggable_path(path: &str) -> String {
    const WEBHOOKS: &str = "/api/runners/webhooks/";
    match path.strip_prefix(WEBHOOKS) {
        Some(token) => format!(
            "{WEBHOOKS}{}…",
            crate::runners::triggers::token_prefix(token)
        ),
        None => path.to_owned(),
    }
}

/// Middleware: one `request` log line per request, the request's id on every
/// line its handler logs, and the `x-request-id` header.
pub async fn request_log(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let started = Instant::now();
    let method = req.method().clone();
    let path = loggable_path(req.path());
    let id = request_id(&req);
    // Every line the request's handler logs carries its id (the span's field).
    let span = tracing::info_span!("request", request_id = %id);
    let mut response = tracing::Instrument::instrument(next.call(req), span).await?;
    let status = response.status().as_u16();
    let duration_ms = started.elapsed().as_secs_f64() * 1000.0;
    // A client's own mistake (any 4xx) is not the operator's alarm: debug.
    if (400..500).contains(&status) {
        tracing::debug!(
            target: "confer::request",
            %method, %path, status, duration_ms, request_id = %id, "request"
        );
    } else {
        tracing::info!(
            target: "confer::request",
            %method, %path, status, duration_ms, request_id = %id, "request"
        );
    }
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(REQUEST_ID, value);
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_http_library_targets_are_capped() {
        assert!(capped_filter("trace").to_string().contains("sled=debug"));
        for asked in [
            "trace",
            "info,sled=trace",
            "sled::tree=trace,pagecache=trace",
            "actix_http=error",
        ] {
            let shown = capped_filter(asked).to_string();
            assert!(shown.contains("actix_http=off"), "{shown}");
            assert!(
                !shown.contains("sled::tree=trace") && !shown.contains("sled=trace"),
                "{shown}"
            );
            assert!(!shown.contains("pagecache=trace"), "{shown}");
        }
        // Other targets keep what was asked, and the level hint stays exact.
        let filter = capped_filter("info,confer=trace,sledgehammer=trace");
        assert!(filter.to_string().contains("sledgehammer=trace"));
        assert_eq!(
            capped_filter("info").max_level_hint(),
            Some(LevelFilter::INFO)
        );
    }
}
