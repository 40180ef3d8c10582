//! Authentication, org scoping and roles: the one place that decides who may
//! call what.
//!
//! Every protected handler takes one of the caller extractors in its
//! signature, so a handler cannot forget the rule:
//!
//! | extractor        | who passes                                         |
//! |------------------|----------------------------------------------------|
//! | [`Caller`]       | any authenticated caller (admin, member, user)     |
//! | [`Member`]       | admins and members (an org's backends and staff)   |
//! | [`Admin`]        | admins (admin API key, JWT with `role: "admin"`)   |
//! | [`PlatformAdmin`]| platform-admin API keys                            |
//! | [`JwtCaller`]    | JWT callers (users and admins), never a key        |
//! | [`visitor::Visitor`] | a visitor token of the path's publication (public chat routes only) |
//!
//! Each authenticates the bearer credential (API key or JWT), picks the org
//! (`orgId` query parameter for multi-org credentials, else the first) and
//! refuses an org the credential is not a member of. Handlers then reach
//! org-owned records only through the caller's `org_id`. A refused role is
//! 403 naming the role needed. Resource-level rules (who may use a thread)
//! live in [`access`]. A visitor token (`cfv_…`) on any of these is 403
//! naming the public prefix; the public chat routes take only [`visitor::Visitor`],
//! which refuses every other credential with 401.

pub mod access;
pub mod api_keys;
pub mod jwt;
pub mod visitor;

use std::future::Future;
use std::ops::Deref;
use std::pin::Pin;

use actix_web::HttpMessage;
use actix_web::dev::Payload;
use actix_web::http::header::AUTHORIZATION;
use actix_web::{FromRequest, HttpRequest, web};
use chrono::{TimeDelta, Utc};
use confer_actors::OrgId;
use serde::Deserialize;

use crate::error::ApiError;
use crate::publishing::visitors;
use crate::state::AppState;
use crate::store::records::{ApiKey, KeyRole};

use self::jwt::JwtUser;

/// Who is calling.
#[derive(Clone, Debug)]
pub enum Principal {
    /// An API key.
    ApiKey(ApiKey),
    /// A JWT user (an admin when the token says `role: "admin"`).
    User(JwtUser),
}

/// A caller's role inside its org (security.md "Callers and roles").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Reads and writes every org resource, manages keys.
    Admin,
    /// Reads org resources, uses every thread of the org.
    Member,
    /// An end user: reads agents, uses its own threads.
    User,
}

/// Least time between two recorded uses of one key: `last_used_at` is
/// informative, and a write per request would cost a disk write per request.
const TOUCH_INTERVAL: TimeDelta = TimeDelta::seconds(60);

/// An authenticated caller, scoped to one org.
#[derive(Clone, Debug)]
pub struct Caller {
    pub principal: Principal,
    /// The org every request of this caller is confined to.
    pub org_id: OrgId,
}

impl Caller {
    /// The user ID recorded as a thread's creator: the JWT `sub`, or `apikey:{id}`.
    pub fn user_id(&self) -> String {
        match &self.principal {
            Principal::ApiKey(key) => format!("{}{}", jwt::API_KEY_SUBJECT_PREFIX, key.id),
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

    /// The API key, when the caller is one.
    pub fn api_key(&self) -> Option<&ApiKey> {
        match &self.principal {
            Principal::ApiKey(key) => Some(key),
            Principal::User(_) => None,
        }
    }

    /// The caller's role in its org.
    pub fn role(&self) -> Role {
        match &self.principal {
            Principal::ApiKey(key) if key.role == KeyRole::Admin => Role::Admin,
            Principal::ApiKey(_) => Role::Member,
            Principal::User(user) if user.admin => Role::Admin,
            Principal::User(_) => Role::User,
        }
    }

    /// Whether the caller may use every thread of its org (admins and members).
    pub fn sees_whole_org(&self) -> bool {
        self.role() != Role::User
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

/// The request's bearer credential (401 when missing or malformed).
pub fn bearer(req: &HttpRequest) -> Result<String, ApiError> {
    let unauthorized = |detail: &str| ApiError::Unauthorized(detail.to_owned());
    let header = req
        .headers()
        .get(AUTHORIZATION)
        .ok_or_else(|| unauthorized("missing Authorization header"))?;
    header
        .to_str()
        .ok()
        .and_then(|h| h.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| unauthorized("expected Authorization: Bearer <credential>"))
}

async fn authenticate(req: HttpRequest) -> Result<Caller, ApiError> {
    let state = req
        .app_data::<web::Data<AppState>>()
        .ok_or_else(|| ApiError::Internal("application state missing".into()))?
        .clone();
    let unauthorized = |detail: &str| ApiError::Unauthorized(detail.to_owned());
    let token = bearer(&req)?;
    if token.starts_with(visitors::TOKEN_PREFIX) {
        return Err(ApiError::Forbidden(
            "a visitor token reaches only the public chat routes (/api/public/chat/{slug}/…)"
                .into(),
        ));
    }

    let principal = match &state.jwt {
        Some(verifier) if jwt::looks_like_jwt(&token) => {
            Principal::User(verifier.verify(&token).map_err(|e| unauthorized(&e))?)
        }
        _ => {
            let hash = api_keys::hash_secret(&token);
            // A key used within the minute is known without a trip to the
            // store (sled's cache); its use is noted once a minute.
            let key = state
                .store
                .orgs()
                .use_api_key(hash, Utc::now(), TOUCH_INTERVAL)
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
    // Counted before the request has any effect, by the node the caller
    // reached: a request another node forwarded was counted there.
    if req.extensions().get::<Forwarded>().is_none() {
        if let Some(cluster) = &state.cluster {
            state.limits.share_among(cluster.live_nodes());
        }
        match &caller.principal {
            Principal::ApiKey(key) => state.limits.key_request(key.id, key.rate_limit_rps)?,
            Principal::User(user) => state.limits.user_request(caller.org_id, &user.sub)?,
        }
    }
    Ok(caller)
}

/// Marks a request another node of the cluster forwarded, its signature
/// checked (`scale.md` §4): the entry node authenticated the caller and
/// counted the request against the rate limits; here it is authenticated
/// again, and not counted twice.
#[derive(Clone, Copy, Debug)]
pub struct Forwarded {
    /// A public chat visitor's IP as the entry node saw it.
    pub client: Option<std::net::IpAddr>,
}

/// Authenticates the caller of a request this node is about to forward
/// (by its visitor token, `public`), counting it against the rate limits
/// (the owner does not); a visitor's IP, which the owner's limits count.
pub async fn before_forwarding(
    req: HttpRequest,
    public: bool,
) -> Result<Option<std::net::IpAddr>, ApiError> {
    match public {
        true => Ok(Some(visitor::authenticate(req).await?.ip.addr())),
        false => authenticate(req).await.map(|_| None),
    }
}

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        Box::pin(authenticate(req.clone()))
    }
}

/// Declares a caller extractor that admits only callers `admits` accepts.
macro_rules! role_extractor {
    ($(#[$doc:meta])* $name:ident, $admits:expr, $refusal:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $name(pub Caller);

        impl Deref for $name {
            type Target = Caller;
            fn deref(&self) -> &Caller {
                &self.0
            }
        }

        impl FromRequest for $name {
            type Error = ApiError;
            type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

            fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
                let req = req.clone();
                Box::pin(async move {
                    let caller = authenticate(req).await?;
                    let admits: fn(&Caller) -> bool = $admits;
                    if admits(&caller) {
                        Ok(Self(caller))
                    } else {
                        Err(ApiError::Forbidden($refusal.into()))
                    }
                })
            }
        }
    };
}

role_extractor!(
    /// An admin or a member of the org (never an end user's JWT).
    Member,
    |caller| caller.role() != Role::User,
    "requires the member or admin role (an API key, or a JWT with role admin)"
);
role_extractor!(
    /// An admin of the org: an admin API key or a JWT with `role: "admin"`.
    Admin,
    |caller| caller.role() == Role::Admin,
    "requires the admin role (an admin API key, or a JWT with role admin)"
);
role_extractor!(
    /// A caller with a JWT (an end user, or an admin by role), never an
    /// API key: managed OAuth connects a person's account.
    JwtCaller,
    |caller| caller.jwt_user().is_some(),
    "requires a JWT (managed OAuth connects a person's account; API keys cannot)"
);
role_extractor!(
    /// A platform-admin API key (may create organizations).
    PlatformAdmin,
    |caller| caller.api_key().is_some_and(|key| key.platform_admin),
    "requires a platform-admin API key"
);

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
