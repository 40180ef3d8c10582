//! The visitor caller (`publishing.md` "Callers", column V): a `cfv_` token
//! of the path's publication at its current generation, the publication
//! active. Checked before the request has any effect, with the visitor's
//! request quota. API keys and JWTs are 401 here; visitor tokens are 403
//! everywhere else (`crate::auth`).

use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use confer_actors::Metadata;

use super::bearer;
use crate::error::ApiError;
use crate::publishing::Publication;
use crate::publishing::client_ip::{IpKey, TrustedProxies};
use crate::publishing::visitors::TOKEN_PREFIX;
use crate::state::AppState;

/// A visitor of one publication.
#[derive(Clone, Debug)]
pub struct Visitor {
    /// The publication as read for this request.
    pub publication: Publication,
    /// `visitor:{id}` or `ext:{publication}:{sub}`: the threads' creator.
    pub user_id: String,
    /// A host identity's name.
    pub name: Option<String>,
    /// The embedding site, as checked at the mint.
    pub origin: Option<String>,
    /// What the IP limits count.
    pub ip: IpKey,
}

impl Visitor {
    /// Counts a send (or a thread's creation) against the publication's
    /// per-visitor and per-IP quotas; before it has any effect.
    pub fn count_send(&self, state: &AppState) -> Result<(), ApiError> {
        let limits = &self.publication.limits;
        state.public.limits.send(
            self.publication.id,
            &self.user_id,
            self.ip,
            limits.visitor_messages_per_minute,
            limits.ip_messages_per_minute,
        )
    }

    /// What the visitor's threads and sends record (and usage records and
    /// traces inherit): the publication, the visitor and the embedding site.
    pub fn metadata(&self) -> Metadata {
        let mut metadata = Metadata::new();
        metadata.insert("publication".into(), self.publication.slug.clone());
        metadata.insert("visitor".into(), self.user_id.clone());
        if let Some(origin) = &self.origin {
            metadata.insert("origin".into(), origin.clone());
        }
        metadata
    }
}

/// The IP a request counts against: the peer, or behind a trusted proxy the
/// client it names.
pub fn client_ip(req: &HttpRequest, proxies: &TrustedProxies) -> IpKey {
    let peer = req
        .peer_addr()
        .map_or(IpAddr::from([0, 0, 0, 0]), |a| a.ip());
    let forwarded: Vec<&str> = req
        .headers()
        .get_all("x-forwarded-for")
        .filter_map(|v| v.to_str().ok())
        .collect();
    proxies.client(peer, &forwarded)
}

/// The visitor of `req`: its token checked against its chat's current
/// generation, its request counted (by the node it reached).
pub(super) async fn authenticate(req: HttpRequest) -> Result<Visitor, ApiError> {
    let state = req
        .app_data::<web::Data<AppState>>()
        .ok_or_else(|| ApiError::Internal("application state missing".into()))?
        .clone();
    let token = bearer(&req)?;
    if !token.starts_with(TOKEN_PREFIX) {
        return Err(ApiError::Unauthorized(
            "public chat routes take a visitor token (cfv_…) from POST /api/public/chat/{slug}/session, not an API key or JWT"
                .into(),
        ));
    }
    let claims = state
        .public
        .keys
        .verify_token(&token)
        .map_err(|e| ApiError::Unauthorized(e.into()))?;
    // Before routing (an entry node about to forward), the path names it.
    let slug = match req.match_info().get("slug") {
        Some(slug) => slug.to_owned(),
        None => req
            .path()
            .strip_prefix("/api/public/chat/")
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_default()
            .to_owned(),
    };
    let publication = match state.public.slugs.get(&slug) {
        Ok(kept) => Some(kept),
        Err(epoch) => {
            let read = state
                .store
                .publications()
                .publication_by_slug(slug, false)
                .await?;
            if let Some(publication) = &read {
                state.public.slugs.offer(publication, epoch);
            }
            read
        }
    };
    let publication = publication
        .filter(|p| p.id == claims.publication)
        .ok_or_else(|| {
            ApiError::Unauthorized("visitor token: not a session of this chat".into())
        })?;
    if publication.generation != claims.generation || !publication.is_active() {
        return Err(ApiError::Unauthorized(
            "visitor token: revoked (the chat was paused or its sessions revoked); start a new session"
                .into(),
        ));
    }
    // A request another node forwarded was counted there, which saw the
    // visitor's own address.
    let forwarded = actix_web::HttpMessage::extensions(&req)
        .get::<super::Forwarded>()
        .copied();
    let ip = match forwarded {
        Some(super::Forwarded { client: Some(ip) }) => IpKey::of(ip),
        _ => client_ip(&req, &state.public.proxies),
    };
    if forwarded.is_none() {
        state
            .public
            .limits
            .request(publication.id, &claims.user_id)?;
    }
    Ok(Visitor {
        ip,
        publication,
        user_id: claims.user_id,
        name: claims.name,
        origin: claims.origin,
    })
}

impl FromRequest for Visitor {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        Box::pin(authenticate(req.clone()))
    }
}
