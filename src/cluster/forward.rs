//! Any node answers (`scale.md` §4): a thread's live work (its sends,
//! stops, streams and its delete) runs on the owner of the thread's
//! shard. Another node relays the request there, signed with the cluster
//! key, and relays the answer back as it comes; the owner checks the
//! signature and that the shard is still its own (421 `NOT_OWNER`
//! otherwise, and the entry tries again), and never forwards.
//!
//! Node-to-node calls use the one client built here (the third builder
//! `.ci/run` allows): peers come only from the `nodes` table, so the
//! outbound policy does not apply.

use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, HttpResponse, web};
use confer_actors::ThreadId;
use futures_util::StreamExt;

use super::Shard;
use super::relay::{self, Reattaching};
use super::serving::Membership;
use super::signing::{CLUSTER_AUTH, FORWARDED, Forwarded};
use crate::auth;
use crate::error::error_response;
use crate::state::AppState;

/// How often a request waiting for an owner looks again.
const RETRY_EVERY: Duration = Duration::from_millis(250);
/// `NOT_OWNER` answers an entry takes before it gives up.
const NOT_OWNER_TRIES: usize = 3;
/// The headers a forwarded request carries on, besides the cluster's.
const CARRIED: [&str; 6] = [
    "authorization",
    "idempotency-key",
    "last-event-id",
    "content-type",
    "x-request-id",
    "accept",
];
/// Headers of one hop, never relayed.
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// The client of node-to-node calls: keep-alive, at most 64 idle
/// connections per peer, 2 s to connect, no redirects, no proxy, and no
/// overall deadline (a relayed stream lasts as long as its turn).
pub fn peer_client() -> reqwest::Result<reqwest::Client> {
    reqwest::Client::builder()
        .pool_max_idle_per_host(64)
        .connect_timeout(Duration::from_secs(2))
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .tcp_nodelay(true)
        .build()
}

/// A request that is a thread's live work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiveWork {
    pub thread: ThreadId,
    /// A public chat visitor's (`/api/public/chat/{slug}/threads/{id}/…`),
    /// authenticated by its visitor token.
    pub public: bool,
}

/// The live work a request is, when it is: the routes that reach a
/// thread's actor, the API's and a public chat's (`scale.md` §4).
pub fn thread_route(method: &Method, path: &str) -> Option<LiveWork> {
    let (rest, public) = match path.strip_prefix("/api/threads/") {
        Some(rest) => (rest, false),
        None => {
            let chat = path.strip_prefix("/api/public/chat/")?;
            let (_slug, rest) = chat.split_once("/threads/")?;
            (rest, true)
        }
    };
    let (id, tail) = rest.split_once('/').unwrap_or((rest, ""));
    let live = matches!(
        (method.as_str(), tail, public),
        ("POST", "messages", _)
            | ("POST", "stop", _)
            | ("GET", "stream", _)
            | ("DELETE", "", false)
    );
    let thread = id.parse().ok().filter(|_| live)?;
    Some(LiveWork { thread, public })
}

fn refused(status: StatusCode, code: &str, detail: &str) -> HttpResponse {
    error_response(status, code, Some(detail))
}

/// Middleware on a cluster's nodes: a thread's live work whose shard
/// another node owns goes there; a forwarded request is checked and
/// served here.
pub async fn route(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let cluster = req
        .app_data::<web::Data<AppState>>()
        .and_then(|state| state.cluster.clone());
    let (Some(cluster), Some(work)) = (cluster, thread_route(req.method(), req.path())) else {
        return Ok(next.call(req).await?.map_into_boxed_body());
    };
    let (thread, shard) = (work.thread, Shard::of(work.thread));
    if let Some(forwarded) = req.headers().get(FORWARDED) {
        return match checked(&cluster, &req, forwarded.as_bytes(), shard) {
            Ok(seen) => {
                req.extensions_mut().insert(auth::Forwarded {
                    client: seen.client,
                });
                Ok(next.call(req).await?.map_into_boxed_body())
            }
            Err(response) => Ok(req.into_response(*response)),
        };
    }
    if cluster
        .owner(shard)
        .is_some_and(|(node, _)| node == cluster.id())
    {
        return Ok(next.call(req).await?.map_into_boxed_body());
    }
    // The entry authenticates and rate-limits; the owner authenticates
    // again and checks access.
    let client = match auth::before_forwarding(req.request().clone(), work.public).await {
        Ok(client) => client,
        Err(error) => return Ok(req.error_response(error).map_into_boxed_body()),
    };
    let (request, payload) = req.into_parts();
    let response = forward(cluster, &request, payload, (thread, shard), client).await;
    Ok(ServiceResponse::new(request, response))
}

/// A forwarded request's signed origin if it is this node's to serve, or
/// why not: it must be signed with the cluster key within the last minute
/// (401), for a shard this node holds at the epoch the entry saw (421
/// `NOT_OWNER`).
fn checked(
    cluster: &Membership,
    req: &ServiceRequest,
    forwarded: &[u8],
    shard: Shard,
) -> Result<Forwarded, Box<HttpResponse>> {
    let target = req.uri().path_and_query().map_or("/", |p| p.as_str());
    let now = chrono::Utc::now().timestamp();
    let seen: Option<Forwarded> = std::str::from_utf8(forwarded).ok().and_then(|forwarded| {
        let signature = req.headers().get(CLUSTER_AUTH)?.to_str().ok()?;
        let method = req.method().as_str();
        cluster
            .key()
            .verify(forwarded, signature, method, target, now)
            .ok()
    });
    let Some(seen) = seen else {
        return Err(Box::new(refused(
            StatusCode::UNAUTHORIZED,
            "UNAUTHORIZED",
            "bad cluster signature",
        )));
    };
    match cluster.owner(shard) {
        Some((node, epoch)) if node == cluster.id() && epoch == seen.epoch => Ok(seen),
        _ => Err(Box::new(refused(
            StatusCode::MISDIRECTED_REQUEST,
            "NOT_OWNER",
            "this node does not own the thread's shard at that epoch",
        ))),
    }
}

/// What an entry node sends a thread's owner: the caller's request, as
/// far as it is resent (`scale.md` §4).
#[derive(Clone, Debug)]
pub struct OwnerRequest {
    pub method: reqwest::Method,
    /// Path and query.
    pub target: String,
    /// The [`CARRIED`] headers the caller sent.
    pub headers: reqwest::header::HeaderMap,
    pub body: bytes::Bytes,
    /// A public chat visitor's IP, signed along (`Forwarded::client`).
    pub client: Option<std::net::IpAddr>,
}

impl OwnerRequest {
    fn of(
        request: &actix_web::HttpRequest,
        body: bytes::Bytes,
        client: Option<std::net::IpAddr>,
    ) -> Self {
        let mut headers = reqwest::header::HeaderMap::new();
        for name in CARRIED {
            if let Some(value) = request.headers().get(name)
                && let Ok(value) = reqwest::header::HeaderValue::from_bytes(value.as_bytes())
            {
                headers.insert(name, value);
            }
        }
        Self {
            method: reqwest::Method::from_bytes(request.method().as_str().as_bytes())
                .unwrap_or(reqwest::Method::GET),
            target: request
                .uri()
                .path_and_query()
                .map_or("/", |p| p.as_str())
                .to_owned(),
            headers,
            body,
            client,
        }
    }

    /// The reattach of a relayed stream of `thread`: `GET …/stream` under
    /// the prefix the caller used (the API's or a public chat's), with the
    /// caller's credentials and `follow` as the stream had it.
    fn reattach(&self, thread: ThreadId, follow: bool) -> Self {
        let mut headers = self.headers.clone();
        for name in ["idempotency-key", "content-type", "last-event-id"] {
            headers.remove(name);
        }
        let query = if follow { "?follow=true" } else { "" };
        let path = self.target.split('?').next().unwrap_or_default();
        let marker = format!("/threads/{thread}");
        let base = path.find(&marker).map_or(format!("/api{marker}"), |at| {
            path[..at + marker.len()].to_owned()
        });
        Self {
            method: reqwest::Method::GET,
            target: format!("{base}/stream{query}"),
            headers,
            body: bytes::Bytes::new(),
            client: self.client,
        }
    }
}

/// Relays the request to the shard's owner and its answer back, waiting
/// up to `CONFER_FORWARD_WAIT_SECS` for an owner to answer. A stream the
/// owner answers with is relayed by [`relay::body`], which reattaches it
/// if it breaks before its end.
async fn forward(
    cluster: Arc<Membership>,
    request: &actix_web::HttpRequest,
    payload: actix_web::dev::Payload,
    (thread, shard): (ThreadId, Shard),
    client: Option<std::net::IpAddr>,
) -> HttpResponse {
    let Some(state) = request.app_data::<web::Data<AppState>>() else {
        return refused(
            StatusCode::INTERNAL_SERVER_ERROR,
            "INTERNAL",
            "internal error",
        );
    };
    let body = match read_body(payload, state.settings.max_body_bytes).await {
        Ok(body) => body,
        Err(response) => return response,
    };
    let wait = Duration::from_secs(state.settings.forward_wait_secs);
    let owner_request = OwnerRequest::of(request, body, client);
    let answer = match to_owner(&cluster, &owner_request, shard, wait).await {
        Ok(answer) => answer,
        Err(response) => return response,
    };
    let streamed = answer.status() == reqwest::StatusCode::OK
        && answer
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .is_some_and(|t| t.as_bytes().starts_with(b"text/event-stream"));
    if !streamed {
        return relay(answer, None);
    }
    let follow = request
        .query_string()
        .split('&')
        .any(|pair| pair == "follow=true");
    let how = Reattaching {
        reattach: owner_request.reattach(thread, follow),
        cluster,
        shard,
        follow,
        wait,
    };
    relay(answer, Some(how))
}

/// Sends `request` to the owner of `shard`, waiting up to `wait` for one
/// to answer: its answer, or the 503 `OWNER_UNAVAILABLE` to give. A
/// `NOT_OWNER` answer (the shard moved) is tried again, 3 times at most.
pub async fn to_owner(
    cluster: &Membership,
    request: &OwnerRequest,
    shard: Shard,
    wait: Duration,
) -> Result<reqwest::Response, HttpResponse> {
    let deadline = Instant::now() + wait;
    let mut not_owner = 0;
    loop {
        if let Some((url, epoch)) = cluster.owner_url(shard) {
            let forwarded = Forwarded {
                node: cluster.id(),
                at: chrono::Utc::now().timestamp(),
                epoch,
                client: request.client,
            };
            let signature =
                cluster
                    .key()
                    .sign(&forwarded, request.method.as_str(), &request.target);
            let upstream = cluster
                .client()
                .request(request.method.clone(), format!("{url}{}", request.target))
                .headers(request.headers.clone())
                .header(FORWARDED, forwarded.header())
                .header(CLUSTER_AUTH, signature)
                .body(request.body.clone());
            match upstream.send().await {
                Ok(answer) if answer.status().as_u16() == 421 && not_owner < NOT_OWNER_TRIES => {
                    not_owner += 1;
                }
                Ok(answer) => return Ok(answer),
                Err(error) => tracing::debug!(%error, "a thread's owner did not answer"),
            }
        }
        if Instant::now() + RETRY_EVERY > deadline {
            let mut response = refused(
                StatusCode::SERVICE_UNAVAILABLE,
                "OWNER_UNAVAILABLE",
                "the node owning this thread did not answer; retry in a moment",
            );
            response.headers_mut().insert(
                actix_web::http::header::RETRY_AFTER,
                actix_web::http::header::HeaderValue::from_static("2"),
            );
            return Err(response);
        }
        tokio::time::sleep(RETRY_EVERY).await;
    }
}

/// The request's body, at most `limit` bytes (413 past it).
async fn read_body(
    mut payload: actix_web::dev::Payload,
    limit: usize,
) -> Result<bytes::Bytes, HttpResponse> {
    let mut body = bytes::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|_| {
            refused(
                StatusCode::BAD_REQUEST,
                "BAD_REQUEST",
                "the request body broke off",
            )
        })?;
        if body.len() + chunk.len() > limit {
            return Err(refused(
                StatusCode::PAYLOAD_TOO_LARGE,
                "PAYLOAD_TOO_LARGE",
                &format!("body: larger than {limit} bytes"),
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

/// The owner's answer as this node's: its status, its end-to-end headers,
/// and its body as it comes (read only as fast as the client reads; a
/// client that leaves closes the upstream, and the turn goes on); a
/// stream reattaching as `how` says.
fn relay(answer: reqwest::Response, how: Option<Reattaching>) -> HttpResponse {
    let status = StatusCode::from_u16(answer.status().as_u16()).unwrap_or(StatusCode::BAD_GATEWAY);
    let mut response = HttpResponse::build(status);
    for (name, value) in answer.headers() {
        if HOP_BY_HOP.contains(&name.as_str()) || name == "content-length" {
            continue;
        }
        response.append_header((name.as_str(), value.as_bytes()));
    }
    match how {
        Some(how) => response.streaming(relay::body(answer, how)),
        None => response.streaming(answer.bytes_stream()),
    }
}
