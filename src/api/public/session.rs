//! `POST /api/public/chat/{slug}/session`: a visitor session (`publishing.md`
//! "Visitors" rules 1–2). No credential; counted per IP before anything
//! else. Writes nothing: the token and the visitor secret are checked
//! against the instance's keys alone.

use actix_web::{HttpRequest, HttpResponse, web};
use chrono::Utc;
use secrecy::ExposeSecret;
use serde::{Deserialize, Serialize};

use crate::api::extract::parse_json;
use crate::auth::visitor::client_ip;
use crate::error::ApiError;
use crate::publishing::visitors::{self, HostIdentity, VisitorClaims, VisitorId};
use crate::publishing::{EmbedOrigin, Identity};
use crate::state::AppState;

/// `POST …/session` body (all optional; an empty body is `{}`).
#[derive(Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionRequest {
    /// A `cvs_` secret from an earlier session: the same visitor again.
    visitor_secret: Option<String>,
    /// The host site's signed identity (HS256 with the identity secret).
    user_token: Option<String>,
    /// The embedding site's origin, as the page sees it.
    origin: Option<String>,
}

/// The host identity of a session.
#[derive(Serialize, utoipa::ToSchema)]
pub struct SessionUser {
    /// The host's `sub`.
    id: String,
    name: Option<String>,
}

/// A visitor session.
#[derive(Serialize, utoipa::ToSchema)]
pub struct VisitorSession {
    /// `cfv_…`: the bearer credential of the public chat routes.
    token: String,
    /// Seconds until the token expires (mint again before).
    expires_in: u64,
    visitor_id: String,
    /// `cvs_…`: resumes this visitor in a later session.
    visitor_secret: String,
    /// Whether `visitorSecret` named this visitor.
    resumed: bool,
    user: Option<SessionUser>,
}

/// `POST /api/public/chat/{slug}/session`.
#[utoipa::path(post, path = "/api/public/chat/{slug}/session", tag = "publishing", operation_id = "public_chat_session", params(("slug" = String, Path, description = "The publication's slug")), request_body = Option<SessionRequest>, responses((status = 200, description = "A visitor session", body = VisitorSession), (status = 401, description = "`userToken` missing (identity `required`) or invalid", body = crate::error::ErrorBody<'static>), (status = 403, description = "`PUBLICATION_PAUSED`, or `origin` is not an allowed embed origin", body = crate::error::ErrorBody<'static>), (status = 404, description = "No such public chat", body = crate::error::ErrorBody<'static>), (status = 429, description = "`RATE_LIMITED`: too many sessions from this address", body = crate::error::ErrorBody<'static>)))]
pub async fn mint(
    state: web::Data<AppState>,
    path: web::Path<String>,
    body: web::Bytes,
    http: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    state
        .public
        .limits
        .mint(client_ip(&http, &state.public.proxies))?;
    let body: SessionRequest = if body.iter().all(u8::is_ascii_whitespace) {
        SessionRequest::default()
    } else {
        parse_json(&body)?
    };
    let slug = path.into_inner();
    let wanted = slug.clone();
    let records = state.store.publications();
    let publication = records
        .publication_by_slug(wanted, false)
        .await?
        .ok_or_else(|| ApiError::NotFound("no such public chat".into()))?;
    let org_origins = records.org_settings(publication.org_id).await?.origins();
    let identity_secret = match publication.identity {
        Identity::Anonymous => None,
        _ => crate::publishing::identity_secret::open(&state.store.secrets(), &publication)?,
    };
    if !publication.is_active() {
        return Err(ApiError::Refused {
            code: confer_actors::codes::PUBLICATION_PAUSED,
            detail: "this chat is paused".into(),
            retry_after: None,
        });
    }
    if let Some(origin) = &body.origin {
        let allowed = publication.effective_domains(&org_origins);
        let covered = EmbedOrigin::parse(origin)
            .is_ok_and(|claimed| allowed.iter().any(|entry| entry.covers(&claimed)));
        if !covered {
            return Err(ApiError::Forbidden(
                "origin: not an allowed embed origin of this chat".into(),
            ));
        }
    }
    let now = Utc::now().timestamp();
    // Under `anonymous` there is no identity secret and a userToken is
    // not read (docs/api.md).
    let host: Option<HostIdentity> = match (&identity_secret, &body.user_token) {
        (Some(secret), Some(token)) => Some(
            visitors::verify_user_token(token, secret.expose_secret(), &slug, now)
                .map_err(ApiError::Unauthorized)?,
        ),
        _ if publication.identity == Identity::Required => {
            return Err(ApiError::Unauthorized(
                "userToken: this chat requires a signed-in user of its site".into(),
            ));
        }
        _ => None,
    };
    let keys = &state.public.keys;
    let remembered = body
        .visitor_secret
        .as_deref()
        .and_then(|secret| keys.open_visitor_secret(publication.id, secret));
    let visitor = match &host {
        Some(identity) => keys.host_visitor(publication.id, &identity.sub),
        None => remembered.unwrap_or_else(VisitorId::random),
    };
    let ttl = state.public.token_ttl_secs;
    let claims = VisitorClaims {
        user_id: visitors::user_id(
            publication.id,
            visitor,
            host.as_ref().map(|h| h.sub.as_str()),
        ),
        publication: publication.id,
        generation: publication.generation,
        org: publication.org_id,
        name: host.as_ref().and_then(|h| h.name.clone()),
        origin: body.origin,
        expires_at: now + ttl as i64,
    };
    let token = keys
        .mint_token(&claims, now)
        .map_err(|e| ApiError::Internal(format!("signing a visitor token: {e}")))?;
    Ok(HttpResponse::Ok()
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-store"))
        .json(VisitorSession {
            token,
            expires_in: ttl,
            visitor_id: visitor.to_string(),
            visitor_secret: keys.visitor_secret(publication.id, visitor),
            resumed: remembered == Some(visitor),
            user: host.map(|h| SessionUser {
                id: h.sub,
                name: h.name,
            }),
        }))
}
