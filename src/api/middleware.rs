//! The HTTP layer's own middleware: every error answered as the contract's
//! JSON, the bound on a request's headers, and the node that answered.

use actix_web::Error;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{ALLOW, CONTENT_TYPE};
use actix_web::middleware::Next;

use crate::error::{code_for_status, error_response};

/// Middleware: an error response that is not already JSON (a 405 from the
/// router, say) gets the contract's `{error, detail}` body; an HTML page
/// for a browser is left as it is.
pub async fn json_errors(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let response = next.call(req).await?.map_into_boxed_body();
    let status = response.status();
    // JSON already, or a page meant for a person's browser (the managed
    // OAuth callback's).
    let shaped = response.headers().get(CONTENT_TYPE).is_some_and(|v| {
        v.as_bytes().starts_with(b"application/json") || v.as_bytes().starts_with(b"text/html")
    });
    if (status.is_client_error() || status.is_server_error()) && !shaped {
        let detail = status.canonical_reason().unwrap_or("error").to_lowercase();
        let mut replacement = error_response(status, code_for_status(status), Some(&detail));
        // A 405 keeps the router's `Allow` (RFC 9110 §15.5.6).
        if let Some(allow) = response.headers().get(ALLOW) {
            replacement.headers_mut().insert(ALLOW, allow.clone());
        }
        return Ok(response.into_response(replacement));
    }
    Ok(response)
}

/// Largest total size of a request's headers (names and values).
pub const MAX_HEADER_BYTES: usize = 32 * 1024;

/// Middleware: a request whose headers total more than [`MAX_HEADER_BYTES`]
/// is refused with 431 before any handler runs.
pub async fn header_limit(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let size: usize = req
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    if size > MAX_HEADER_BYTES {
        let detail = format!("request headers: larger than {MAX_HEADER_BYTES} bytes");
        let response = error_response(
            actix_web::http::StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            "HEADERS_TOO_LARGE",
            Some(&detail),
        );
        return Ok(req.into_response(response));
    }
    Ok(next.call(req).await?.map_into_boxed_body())
}

/// Middleware, on a cluster's nodes only: every response names the node
/// that did the work (`X-Confer-Node`, `scale.md` §4).
pub async fn node_header(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let node = req
        .app_data::<actix_web::web::Data<crate::state::AppState>>()
        .and_then(|state| state.cluster.as_ref().map(|c| c.id()));
    let mut response = next.call(req).await?.map_into_boxed_body();
    // A relayed answer keeps the owner's.
    if let Some(node) = node
        && !response.headers().contains_key("x-confer-node")
        && let Ok(value) = actix_web::http::header::HeaderValue::from_str(&node.to_string())
    {
        response.headers_mut().insert(
            actix_web::http::header::HeaderName::from_static("x-confer-node"),
            value,
        );
    }
    Ok(response)
}
