//! The HTTP layer: one module per resource, each with its request and response
//! shapes beside its handlers. Handlers parse, authorize (every protected one
//! takes a `Caller`), call the store or an actor, and shape the response.
//! The route table below is the whole API at a glance.

pub mod agents;
pub mod compaction;
pub mod credentials;
pub mod extract;
pub mod health;
pub mod keys;
pub mod messages;
pub mod orgs;
pub mod participants;
pub mod threads;
pub mod usage;

use actix_web::Error;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::CONTENT_TYPE;
use actix_web::middleware::Next;
use actix_web::web;
use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;

use crate::error::{ApiError, code_for_status, error_response};

/// Every route of the service.
pub fn routes(cfg: &mut web::ServiceConfig) {
    use web::{delete, get, patch, post, put, resource};
    cfg.route("/healthz", get().to(health::healthz))
        .service(
            web::scope("/api")
                .service(
                    resource("/agents")
                        .route(get().to(agents::list))
                        .route(post().to(agents::create)),
                )
                .service(
                    resource("/agents/{agent_id}")
                        .route(get().to(agents::get))
                        .route(patch().to(agents::update))
                        .route(delete().to(agents::delete)),
                )
                .service(
                    resource("/agents/{agent_id}/credentials")
                        .route(get().to(credentials::get))
                        .route(put().to(credentials::put)),
                )
                .service(
                    resource("/agents/{agent_id}/compaction")
                        .route(get().to(compaction::get))
                        .route(put().to(compaction::put)),
                )
                .service(
                    resource("/threads")
                        .route(get().to(threads::list))
                        .route(post().to(threads::create)),
                )
                .service(
                    resource("/threads/{thread_id}")
                        .route(get().to(threads::get))
                        .route(patch().to(threads::update))
                        .route(delete().to(threads::delete)),
                )
                .service(
                    resource("/threads/{thread_id}/messages")
                        .route(get().to(messages::history))
                        .route(post().to(messages::send)),
                )
                .service(resource("/threads/{thread_id}/stop").route(post().to(messages::stop)))
                .service(
                    resource("/threads/{thread_id}/participants")
                        .route(get().to(participants::list))
                        .route(post().to(participants::add))
                        .route(delete().to(participants::remove)),
                )
                .service(
                    resource("/keys")
                        .route(get().to(keys::list))
                        .route(post().to(keys::create)),
                )
                .service(resource("/keys/{key_id}").route(delete().to(keys::delete)))
                .service(
                    resource("/orgs")
                        .route(get().to(orgs::list))
                        .route(post().to(orgs::create)),
                )
                .service(resource("/usage").route(get().to(usage::list))),
        )
        .default_service(web::to(no_route));
}

async fn no_route() -> Result<actix_web::HttpResponse, ApiError> {
    Err(ApiError::NotFound("no such route".into()))
}

/// Middleware: an error response that is not already JSON (a 405 from the
/// router, say) gets the contract's `{error, detail}` body.
pub async fn json_errors(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let response = next.call(req).await?.map_into_boxed_body();
    let status = response.status();
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if (status.is_client_error() || status.is_server_error()) && !is_json {
        let detail = status.canonical_reason().unwrap_or("error").to_lowercase();
        let replacement = error_response(status, code_for_status(status), Some(&detail));
        return Ok(response.into_response(replacement));
    }
    Ok(response)
}

/// The wire form of a timestamp: RFC 3339, UTC, microseconds.
pub fn timestamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// Parses a `cursor` query value.
pub fn parse_cursor(cursor: Option<&str>) -> Result<Option<DateTime<Utc>>, ApiError> {
    cursor
        .filter(|c| !c.is_empty())
        .map(|c| {
            DateTime::parse_from_rfc3339(c)
                .map(|t| t.with_timezone(&Utc))
                .map_err(|_| ApiError::BadRequest("cursor: expected an ISO 8601 timestamp".into()))
        })
        .transpose()
}

/// Clamps a page size: default when absent, at least 1, at most `max`.
pub fn page_limit(limit: Option<u32>, default: u32, max: u32) -> usize {
    limit.unwrap_or(default).clamp(1, max) as usize
}

/// `{"ok": true}`.
#[derive(Serialize)]
pub struct Ok {
    pub ok: bool,
}

/// The `{"ok": true}` body of a delete.
pub fn ok() -> web::Json<Ok> {
    web::Json(Ok { ok: true })
}
