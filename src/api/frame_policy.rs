//! Who may frame Confer's responses, and no MIME sniffing (`publishing.md`
//! "Pages" rules 1 and 2). A response that set a `Content-Security-Policy`
//! with `frame-ancestors` (the public chat page, which allowed sites embed)
//! is framed as it says and gets no `X-Frame-Options`; every other response
//! gets `X-Frame-Options: DENY` and `frame-ancestors 'none'`: added to the
//! policy it set, or, without one, `default-src 'none'; frame-ancestors
//! 'none'` (an HTML page without a policy, `/docs`, gets the directive
//! alone, so its scripts still load).
//!
//! The public surface (`/api/public/…`, `/c/…`, `/console`, `/assets/…`,
//! a runner's button)
//! never carries CORS headers (rule 10): its pages are Confer's own, and no
//! other site's script may read it, whatever `CONFER_CORS_ORIGINS` allows.

use actix_web::Error;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{
    CONTENT_SECURITY_POLICY, CONTENT_TYPE, HeaderValue, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use actix_web::middleware::Next;

/// The policy of a response that did not set one.
const NO_FRAMES: &str = "default-src 'none'; frame-ancestors 'none'";

/// The `Content-Security-Policy` a response leaves with, given the one it
/// set and whether it is an HTML page; `None`: leave it as it is (it says
/// who may frame it).
fn policy(set: Option<&str>, html: bool) -> Option<String> {
    match set {
        Some(set) if set.contains("frame-ancestors") => None,
        Some(set) => Some(format!(
            "{}; frame-ancestors 'none'",
            set.trim_end().trim_end_matches(';')
        )),
        None if html => Some("frame-ancestors 'none'".to_owned()),
        None => Some(NO_FRAMES.to_owned()),
    }
}

/// Whether `path` is on the public surface (no credential, no CORS).
pub fn is_public(path: &str) -> bool {
    path.starts_with("/api/public/")
        || path.starts_with("/c/")
        || path == "/console"
        || path.starts_with("/assets/")
        || is_runner_button(path)
}

/// A runner's button page, its runs and its launcher
/// (`/api/runners/{id}/button…`, `/api/runners/{id}/embed.js`).
fn is_runner_button(path: &str) -> bool {
    let Some(rest) = path.strip_prefix("/api/runners/") else {
        return false;
    };
    let after_id = rest.split_once('/').map_or("", |(_, after)| after);
    after_id == "embed.js" || after_id == "button" || after_id.starts_with("button/")
}

/// Middleware: the framing and sniffing headers of every response, and no
/// CORS headers on the public surface.
pub async fn headers(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let public = is_public(req.path());
    let mut response = next.call(req).await?.map_into_boxed_body();
    let headers = response.headers_mut();
    if public {
        let cors: Vec<_> = headers
            .keys()
            .filter(|name| name.as_str().starts_with("access-control-"))
            .cloned()
            .collect();
        for name in cors {
            headers.remove(name);
        }
    }
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    let html = headers
        .get(CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"text/html"));
    let set = headers
        .get(CONTENT_SECURITY_POLICY)
        .and_then(|v| v.to_str().ok());
    if let Some(policy) = policy(set, html) {
        // Built from a policy that was a valid header value and ASCII text.
        if let Ok(value) = HeaderValue::from_str(&policy) {
            headers.insert(CONTENT_SECURITY_POLICY, value);
        }
        headers.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_page_that_names_its_framers_may_be_framed() {
        assert_eq!(policy(None, false).as_deref(), Some(NO_FRAMES));
        assert_eq!(
            policy(None, true).as_deref(),
            Some("frame-ancestors 'none'")
        );
        assert_eq!(
            policy(Some("default-src 'none';"), true).as_deref(),
            Some("default-src 'none'; frame-ancestors 'none'")
        );
        assert_eq!(
            policy(
                Some("default-src 'none'; frame-ancestors 'self' https://a.example.com"),
                true
            ),
            None
        );
    }

    #[test]
    fn a_runners_button_is_on_the_public_surface_and_its_api_is_not() {
        assert!(is_public("/api/runners/r1/button"));
        assert!(is_public("/api/runners/r1/button/runs/x/events"));
        assert!(is_public("/api/runners/r1/embed.js"));
        assert!(!is_public("/api/runners/r1/runs"));
        assert!(!is_public("/api/runners/r1/buttons"));
        assert!(!is_public("/api/runners/webhooks/whk_1"));
    }
}
