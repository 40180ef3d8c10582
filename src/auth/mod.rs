//! Authentication and org scoping.
//!
//! Every protected handler takes a [`Caller`]: the extractor authenticates the
//! bearer credential (API key or JWT), picks the org (`orgId` query parameter
//! for multi-org credentials, else the first) and refuses an org the credential
//! is not a member of. Handlers then reach org-owned records only through the
//! caller's `org_id`, so org scoping cannot be forgotten. Resource-level rules
//! (who may use a thread) live in [`access`].

pub mod access;
pub mod api_keys;
pub mod jwt;

use std::future::Future;
use std::pin::Pin;

use actix_web::dev::Payload;
use actix_web::http::header::AUTHORIZATION;
use actix_web::{FromRequest, HttpRequest, web};
use chrono::{TimeDelta, Utc};
use confer_actors::OrgId;
use serde::Deserialize;

use crate::error::ApiError;
use crate::state::AppState;
use crate::store::records::{ApiKey, KeyRole};

use self::jwt::JwtUser;

/// Who is calling.
#[derive(Clone, Debug)]
pub enum Principal {
    /// An API key: access to all of its org's threads.
    ApiKey(ApiKey),
    /// A JWT user: access to its own threads and multiplayer threads it joined.
    User(JwtUser),
}

/// An authenticated caller, scoped to one org.
#[derive(Clone, Debug)]
pub struct Caller {
    pub principal: Principal,
    /// The org every request of this caller is confined to.
    pub org_id: OrgId,
}

/// Seconds between two `last_used_at` updates of one key.
const TOUCH_INTERVAL: TimeDelta = TimeDelta::seconds(60);

impl Caller {
    /// The user ID recorded as a thread's creator: the JWT `sub`, or `apikey:{id}`.
    pub fn user_id(&self) -> String {
        match &self.principal {
            Principal::ApiKey(key) => format!("apikey:{}", key.id),
            Principal::User(user) => user.sub.clone(),
        }
    }

    /// The JWT user, when the caller is one.
    pub fn jwt_user(&self) -> Option<&JwtUser> {
        match &self.principal {
            Principal::User(user) => Some(user),
            Principal::ApiKey(_) => None,
        }
    }

    /// Refuses anything but an admin API key (403).
    pub fn require_admin(&self) -> Result<&ApiKey, ApiError> {
        match &self.principal {
            Principal::ApiKey(key) if key.role == KeyRole::Admin => Ok(key),
            _ => Err(ApiError::Forbidden("requires an admin API key".into())),
        }
    }

    /// Refuses anything but a platform-admin API key (403).
    pub fn require_platform_admin(&self) -> Result<&ApiKey, ApiError> {
        match &self.principal {
            Principal::ApiKey(key) if key.platform_admin => Ok(key),
            _ => Err(ApiError::Forbidden(
                "requires a platform-admin API key".into(),
            )),
        }
    }

    /// The orgs the credential belongs to.
    pub fn member_orgs(&self) -> Vec<OrgId> {
        match &self.principal {
            Principal::ApiKey(key) => vec![key.org_id],
            Principal::User(user) => user.org_ids.clone(),
        }
    }
}

#[derive(Deserialize)]
struct OrgChoice {
    #[serde(rename = "orgId")]
    org_id: Option<String>,
}

/// Picks the org of a request among the credential's orgs.
fn choose_org(member_of: &[OrgId], requested: Option<&str>) -> Result<OrgId, ApiError> {
    let not_member = || ApiError::Forbidden("orgId: not a member of that organization".into());
    match requested {
        Some(wanted) => {
            let wanted: OrgId = wanted.parse().map_err(|_| not_member())?;
            member_of
                .contains(&wanted)
                .then_some(wanted)
                .ok_or_else(not_member)
        }
        None => member_of
            .first()
            .copied()
            .ok_or_else(|| ApiError::Forbidden("the credential names no organization".into())),
    }
}

async fn authenticate(req: HttpRequest) -> Result<Caller, ApiError> {
    let state = req
        .app_data::<web::Data<AppState>>()
        .ok_or_else(|| ApiError::Internal("application state missing".into()))?
        .clone();
    let unauthorized = |detail: &str| ApiError::Unauthorized(detail.to_owned());
    let header = req
        .headers()
        .get(AUTHORIZATION)
        .ok_or_else(|| unauthorized("missing Authorization header"))?;
    let token = header
        .to_str()
        .ok()
        .and_then(|h| h.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| unauthorized("expected Authorization: Bearer <credential>"))?
        .to_owned();

    let principal = match &state.jwt {
        Some(verifier) if jwt::looks_like_jwt(&token) => {
            Principal::User(verifier.verify(&token).map_err(|e| unauthorized(&e))?)
        }
        _ => {
            let hash = api_keys::hash_secret(&token);
            let now = Utc::now();
            let key = state
                .store
                .run(move |store| {
                    let key = store.api_key_by_hash(&hash)?;
                    if let Some(key) = &key {
                        let stale = key.last_used_at.is_none_or(|at| now - at > TOUCH_INTERVAL);
                        if stale {
                            store.touch_api_key(key.id, now)?;
                        }
                    }
                    Ok(key)
                })
                .await?
                .ok_or_else(|| unauthorized("invalid API key"))?;
            Principal::ApiKey(key)
        }
    };

    let choice = web::Query::<OrgChoice>::from_query(req.query_string())
        .map(web::Query::into_inner)
        .unwrap_or(OrgChoice { org_id: None });
    let mut caller = Caller {
        principal,
        org_id: OrgId::from_bytes([0; 16]),
    };
    caller.org_id = choose_org(&caller.member_orgs(), choice.org_id.as_deref())?;
    Ok(caller)
}

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        Box::pin(authenticate(req.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn org_choice_follows_membership() {
        let a = OrgId::new();
        let b = OrgId::new();
        assert_eq!(choose_org(&[a, b], None).unwrap(), a);
        assert_eq!(choose_org(&[a, b], Some(&b.to_string())).unwrap(), b);
        let outsider = OrgId::new().to_string();
        assert!(matches!(
            choose_org(&[a], Some(&outsider)),
            Err(ApiError::Forbidden(_))
        ));
        assert!(matches!(
            choose_org(&[a], Some("garbage")),
            Err(ApiError::Forbidden(_))
        ));
        assert!(matches!(choose_org(&[], None), Err(ApiError::Forbidden(_))));
    }
}
