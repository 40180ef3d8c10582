//! `/api/orgs`: organizations. Creating one needs a platform-admin key and
//! answers the new org with its first admin key (secret shown once).

use actix_web::{HttpResponse, web};
use chrono::Utc;
use confer_actors::OrgId;
use serde::{Deserialize, Serialize};

use super::extract::JsonBody;
use super::keys::{CreatedKey, validate_name};
use super::timestamp;
use crate::auth::api_keys::{generate_secret, new_key_record};
use crate::auth::{Caller, PlatformAdmin};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::records::{KeyRole, Org};

/// An org as returned.
#[derive(Serialize, utoipa::ToSchema)]
pub struct OrgView {
    id: String,
    name: String,
    created_at: String,
}

impl From<Org> for OrgView {
    fn from(org: Org) -> Self {
        Self {
            id: org.id.to_string(),
            name: org.name,
            created_at: timestamp(org.created_at),
        }
    }
}

#[derive(Serialize, utoipa::ToSchema)]
struct CreatedOrg {
    #[serde(flatten)]
    org: OrgView,
    api_key: CreatedKey,
}

/// `POST /api/orgs` body.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct CreateOrg {
    name: String,
}

/// `GET /api/orgs`: the orgs the caller's credential belongs to.
#[utoipa::path(get, path = "/api/orgs", tag = "orgs", operation_id = "orgs_list", security(("bearer" = [])), responses((status = 200, description = "The caller's orgs", body = Vec<OrgView>)))]
pub async fn list(state: web::Data<AppState>, caller: Caller) -> Result<HttpResponse, ApiError> {
    let members = caller.member_orgs();
    let mut orgs = Vec::with_capacity(members.len());
    for id in members {
        orgs.extend(state.store.orgs().org(id).await?);
    }
    let views: Vec<OrgView> = orgs.into_iter().map(OrgView::from).collect();
    Ok(HttpResponse::Ok().json(views))
}

/// `POST /api/orgs`: 201 with the org and its first admin key.
#[utoipa::path(post, path = "/api/orgs", tag = "orgs", operation_id = "orgs_create", security(("bearer" = ["platform_admin"])), request_body = CreateOrg, responses((status = 201, description = "The org and its first admin key, shown once", body = CreatedOrg)))]
pub async fn create(
    state: web::Data<AppState>,
    _caller: PlatformAdmin,
    body: JsonBody<CreateOrg>,
) -> Result<HttpResponse, ApiError> {
    let name = validate_name(&body.into_inner().name)?;
    let org = Org {
        id: OrgId::new(),
        name,
        created_at: Utc::now(),
    };
    let secret = generate_secret()?;
    let (key, hash) = new_key_record(
        org.id,
        "first admin key".into(),
        KeyRole::Admin,
        false,
        &secret,
    );
    // The key is written last: until it exists the org is unreachable.
    state.store.orgs().put_org(org.clone()).await?;
    state.store.orgs().insert_api_key(key.clone(), hash).await?;
    Ok(HttpResponse::Created().json(CreatedOrg {
        org: OrgView::from(org),
        api_key: CreatedKey::new(key, &secret),
    }))
}
