//! `/api/orgs/settings`: the org's publishing settings (`publishing.md`
//! "Org settings"): the origins allowed to embed its public chats. Members
//! read, admins replace; each entry's grammar is `publishing::domains`.

use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};

use super::extract::JsonBody;
use crate::auth::{Admin, Caller, Member};
use crate::error::{ApiError, stored};
use crate::publishing::{OrgSettings, domains};
use crate::state::AppState;

/// The settings as returned.
#[derive(Serialize, utoipa::ToSchema)]
pub struct OrgSettingsView {
    org_id: String,
    allowed_embed_domains: Vec<String>,
    updated_at: Option<String>,
}

/// `POST` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PutOrgSettings {
    /// Replaces the list: `https://host[:port]`, `https://*.host[:port]`,
    /// or `http://` on localhost, `*.localhost`, 127.0.0.1 or [::1]; at
    /// most 100, stored lowercase and in punycode.
    allowed_embed_domains: Option<Vec<String>>,
}

fn view(caller: &Caller, settings: OrgSettings) -> HttpResponse {
    HttpResponse::Ok().json(OrgSettingsView {
        org_id: caller.org_id.to_string(),
        allowed_embed_domains: settings.allowed_embed_domains,
        updated_at: settings.updated_at.map(super::timestamp),
    })
}

/// `GET /api/orgs/settings`
#[utoipa::path(get, path = "/api/orgs/settings", tag = "publishing", operation_id = "org_settings_get", security(("bearer" = ["member"])), responses((status = 200, description = "The org's settings", body = OrgSettingsView)))]
pub async fn get(state: web::Data<AppState>, caller: Member) -> Result<HttpResponse, ApiError> {
    let org = caller.org_id;
    let settings = state.store.publications().org_settings(org).await?;
    Ok(view(&caller, settings))
}

/// `POST /api/orgs/settings`: replaces the present fields.
#[utoipa::path(post, path = "/api/orgs/settings", tag = "publishing", operation_id = "org_settings_put", security(("bearer" = ["admin"])), request_body = PutOrgSettings, responses((status = 200, description = "The org's settings", body = OrgSettingsView), (status = 422, description = "An entry breaks the grammar (`allowedEmbedDomains[i]`)", body = crate::error::ErrorBody<'static>)))]
pub async fn put(
    state: web::Data<AppState>,
    caller: Admin,
    body: JsonBody<PutOrgSettings>,
) -> Result<HttpResponse, ApiError> {
    let org = caller.org_id;
    let list = match &body.into_inner().allowed_embed_domains {
        Some(raw) => Some(
            domains::parse_list("allowedEmbedDomains", raw)?
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
        ),
        None => None,
    };
    let outcome = state
        .store
        .publications()
        .update_org_settings(
            org,
            Box::new(move |mut settings| {
                if let Some(list) = &list {
                    settings.allowed_embed_domains = list.clone();
                }
                settings.updated_at = Some(chrono::Utc::now());
                Ok(settings)
            }),
        )
        .await?;
    Ok(view(&caller, stored(outcome, "org")?))
}
