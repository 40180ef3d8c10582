//! `/api/keys`: an org's API keys. Managing keys needs an admin key; the
//! secret is shown once, in the answer that created it.

use actix_web::{HttpResponse, web};
use confer_actors::ApiKeyId;
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

use super::extract::{JsonBody, Patch};
use super::timestamp;
use crate::auth::Admin;
use crate::auth::api_keys::{generate_secret, new_key_record};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::records::{ApiKey, KeyRole};

const MAX_NAME_CHARS: usize = 200;

/// A key as listed (never the secret).
#[derive(Serialize, utoipa::ToSchema)]
pub struct KeyView {
    id: String,
    org_id: String,
    name: String,
    prefix: String,
    role: KeyRole,
    created_at: String,
    last_used_at: Option<String>,
    rate_limit_rps: Option<f64>,
    act_as_users: bool,
}

impl From<ApiKey> for KeyView {
    fn from(key: ApiKey) -> Self {
        Self {
            id: key.id.to_string(),
            org_id: key.org_id.to_string(),
            name: key.name,
            prefix: key.prefix,
            role: key.role,
            created_at: timestamp(key.created_at),
            last_used_at: key.last_used_at.map(timestamp),
            rate_limit_rps: key.rate_limit_rps,
            act_as_users: key.act_as_users,
        }
    }
}

/// A key with its secret: the answer of the call that created it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct CreatedKey {
    #[serde(flatten)]
    view: KeyView,
    key: String,
}

impl CreatedKey {
    /// The view of `record` with its one-time secret.
    pub fn new(record: ApiKey, secret: &SecretString) -> Self {
        Self {
            view: KeyView::from(record),
            key: secret.expose_secret().to_owned(),
        }
    }
}

/// `POST /api/keys` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateKey {
    name: String,
    role: Option<KeyRole>,
    /// Requests per second; absent: `CONFER_KEY_RATE_LIMIT_RPS`; null: unlimited.
    #[serde(default)]
    #[schema(value_type = Option<f64>)]
    rate_limit_rps: Patch<f64>,
    #[serde(default)]
    act_as_users: bool,
}

/// Checks a key or org name (422).
pub fn validate_name(name: &str) -> Result<String, ApiError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(ApiError::invalid("name", "must not be empty"));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(ApiError::invalid(
            "name",
            format!("at most {MAX_NAME_CHARS} characters"),
        ));
    }
    Ok(name.to_owned())
}

/// `GET /api/keys`
#[utoipa::path(get, path = "/api/keys", tag = "keys", operation_id = "keys_list", security(("bearer" = ["admin"])), responses((status = 200, description = "The org's keys (never their secrets)", body = Vec<KeyView>)))]
pub async fn list(state: web::Data<AppState>, caller: Admin) -> Result<HttpResponse, ApiError> {
    let org = caller.org_id;
    let keys = state.store.orgs().api_keys(org).await?;
    let views: Vec<KeyView> = keys.into_iter().map(KeyView::from).collect();
    Ok(HttpResponse::Ok().json(views))
}

/// `POST /api/keys`: 201 with the key and its secret.
#[utoipa::path(post, path = "/api/keys", tag = "keys", operation_id = "keys_create", security(("bearer" = ["admin"])), request_body = CreateKey, responses((status = 201, description = "The key with its secret, shown once", body = CreatedKey)))]
pub async fn create(
    state: web::Data<AppState>,
    caller: Admin,
    body: JsonBody<CreateKey>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let name = validate_name(&body.name)?;
    let secret = generate_secret()?;
    let rate_limit_rps = match body.rate_limit_rps {
        Patch::Absent => Some(state.settings.key_rate_limit_rps).filter(|r| *r > 0.0),
        Patch::Null => None,
        Patch::Value(rps) if rps.is_finite() && rps > 0.0 => Some(rps),
        Patch::Value(_) => {
            return Err(ApiError::invalid(
                "rateLimitRps",
                "must be a positive number, or null for no limit",
            ));
        }
    };
    let (mut record, hash) = new_key_record(
        caller.org_id,
        name,
        body.role.unwrap_or(KeyRole::Member),
        false,
        &secret,
    );
    record.rate_limit_rps = rate_limit_rps;
    record.act_as_users = body.act_as_users;
    state
        .store
        .orgs()
        .insert_api_key(record.clone(), hash)
        .await?;
    Ok(HttpResponse::Created().json(CreatedKey::new(record, &secret)))
}

/// `DELETE /api/keys/{id}`: the key is refused from then on.
#[utoipa::path(delete, path = "/api/keys/{key_id}", tag = "keys", operation_id = "keys_delete", security(("bearer" = ["admin"])), params(("key_id" = uuid::Uuid, Path, description = "The key's id")), responses((status = 200, description = "Revoked: refused from now on", body = super::Ok)))]
pub async fn delete(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<ApiKeyId>,
) -> Result<HttpResponse, ApiError> {
    let org = caller.org_id;
    let id = path.into_inner();
    let deleted = state.store.orgs().delete_api_key(org, id).await?;
    if !deleted {
        return Err(ApiError::not_found("API key"));
    }
    Ok(HttpResponse::Ok().json(super::Ok { ok: true }))
}
