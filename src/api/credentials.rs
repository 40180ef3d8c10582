//! `/api/agents/{id}/credentials`: the per-agent bring-your-own-key resolver
//! configuration. The signing secret is shown only in the PUT answer that
//! created or rotated it; GET never shows it.

use actix_web::{HttpResponse, web};
use confer_actors::{AgentId, CredentialConfig};
use secrecy::ExposeSecret;
use serde::{Deserialize, Serialize};

use super::agents::live_agent;
use super::extract::JsonBody;
use crate::auth::api_keys::{SIGNING_SECRET_PREFIX, random_token};
use crate::auth::{Admin, Caller, Member};
use crate::error::{ApiError, stored};
use crate::outbound::OutboundPolicy;
use crate::state::AppState;

const TIMEOUT_RANGE_MS: std::ops::RangeInclusive<i64> = 100..=30_000;

/// The configuration as returned.
#[derive(Serialize, utoipa::ToSchema)]
pub struct CredentialView {
    agent_id: String,
    org_id: String,
    enabled: bool,
    resolver_url: String,
    timeout_ms: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    signing_secret: Option<String>,
}

impl CredentialView {
    fn new(caller: &Caller, agent: AgentId, config: &CredentialConfig) -> Self {
        Self {
            agent_id: agent.to_string(),
            org_id: caller.org_id.to_string(),
            enabled: config.enabled,
            resolver_url: config.resolver_url.clone(),
            timeout_ms: config.timeout_ms,
            signing_secret: None,
        }
    }
}

/// `PUT` body: replaces the configuration (omitted optional fields reset to
/// their defaults); the signing secret is kept unless `rotateSecret` is true.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PutCredentials {
    enabled: bool,
    resolver_url: Option<String>,
    timeout_ms: Option<i64>,
    #[serde(default)]
    rotate_secret: bool,
}

/// The outbound policy's shape check (422 naming why); names are not resolved.
fn validate_resolver_url(policy: &OutboundPolicy, raw: &str) -> Result<(), ApiError> {
    policy
        .check_url(raw)
        .map(drop)
        .map_err(|why| ApiError::invalid("resolverUrl", why))
}

/// `GET /api/agents/{id}/credentials`
#[utoipa::path(get, path = "/api/agents/{agent_id}/credentials", tag = "agents", operation_id = "credentials_get", security(("bearer" = ["member"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), responses((status = 200, description = "The resolver configuration (never the secret)", body = CredentialView)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<AgentId>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let org = caller.org_id;
    let config = state.store.agents().credentials(org, agent.id).await?;
    Ok(HttpResponse::Ok().json(CredentialView::new(&caller, agent.id, &config)))
}

/// `PUT /api/agents/{id}/credentials`
#[utoipa::path(put, path = "/api/agents/{agent_id}/credentials", tag = "agents", operation_id = "credentials_put", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = PutCredentials, responses((status = 200, description = "The configuration; `signingSecret` only when made or rotated", body = CredentialView)))]
pub async fn put(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<PutCredentials>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let body = body.into_inner();
    let resolver_url = body.resolver_url.unwrap_or_default().trim().to_owned();
    if body.enabled && resolver_url.is_empty() {
        return Err(ApiError::invalid(
            "resolverUrl",
            "required when enabled is true",
        ));
    }
    if !resolver_url.is_empty() {
        validate_resolver_url(state.outbound.policy(), &resolver_url)?;
    }
    let timeout_ms = match body.timeout_ms {
        None => CredentialConfig::DEFAULT_TIMEOUT_MS,
        Some(ms) if TIMEOUT_RANGE_MS.contains(&ms) => u32::try_from(ms).unwrap_or(u32::MAX),
        Some(_) => {
            return Err(ApiError::invalid(
                "timeoutMs",
                "must be between 100 and 30000",
            ));
        }
    };
    // Generated before the write so the store closure stays infallible here.
    let candidate = random_token(SIGNING_SECRET_PREFIX)?;
    let candidate_shown = candidate.clone();
    let org = caller.org_id;
    let (enabled, rotate) = (body.enabled, body.rotate_secret);
    let outcome = state
        .store
        .agents()
        .update_credentials(
            org,
            agent.id,
            Box::new(move |previous| {
                let create = previous.signing_secret.is_none() && enabled;
                let fresh = (create || rotate).then(|| candidate.expose_secret().to_owned());
                Ok(CredentialConfig {
                    enabled,
                    resolver_url: resolver_url.clone(),
                    timeout_ms,
                    signing_secret: fresh.or(previous.signing_secret),
                })
            }),
        )
        .await?;
    let config = stored(outcome, "agent")?;
    let rotated = config.signing_secret.as_deref() == Some(candidate_shown.expose_secret());
    let shown = rotated.then(|| candidate_shown.expose_secret().to_owned());
    let mut view = CredentialView::new(&caller, agent.id, &config);
    view.signing_secret = shown;
    Ok(HttpResponse::Ok().json(view))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolver_urls_must_be_absolute_https() {
        let policy = OutboundPolicy::default();
        assert!(validate_resolver_url(&policy, "https://resolver.example/keys").is_ok());
        for bad in [
            "http://resolver.example/keys",
            "/relative",
            "https://",
            "not a url",
            "https://169.254.169.254/latest",
        ] {
            assert!(validate_resolver_url(&policy, bad).is_err(), "{bad}");
        }
    }
}
