//! `/api/agents/{id}/publish`: an agent's publication as a public chat
//! (`publishing.md` "Publications"). One per agent; admins write, members
//! read. The rules of its fields are `publishing::rules`; the store keeps
//! the slug unique in the record's own transaction.

use actix_web::{HttpResponse, web};
use confer_actors::AgentId;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::agents::live_agent;
use super::extract::{JsonBody, Patch};
use super::timestamp;
use crate::auth::{Admin, Member};
use crate::error::ApiError;
use crate::publishing::rules::{self, PublicationChanges};
use crate::publishing::{
    Identity, Persistence, Publication, PublicationLimits, PublicationMode, PublicationStatus,
};
use crate::state::AppState;
use crate::store::publications::PublicationCreated;
use crate::store::update::Updated;

/// A publication's limits as returned.
#[derive(Serialize, utoipa::ToSchema)]
pub struct LimitsView {
    visitor_messages_per_minute: u32,
    ip_messages_per_minute: u32,
    max_concurrent_turns: u32,
    max_message_chars: u32,
    daily_token_budget: Option<u64>,
    max_output_tokens: u32,
}

impl From<&PublicationLimits> for LimitsView {
    fn from(limits: &PublicationLimits) -> Self {
        Self {
            visitor_messages_per_minute: limits.visitor_messages_per_minute,
            ip_messages_per_minute: limits.ip_messages_per_minute,
            max_concurrent_turns: limits.max_concurrent_turns,
            max_message_chars: limits.max_message_chars,
            daily_token_budget: limits.daily_token_budget,
            max_output_tokens: limits.max_output_tokens,
        }
    }
}

/// A publication as every route returns it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct PublicationView {
    id: String,
    org_id: String,
    agent_id: String,
    slug: String,
    title: String,
    description: String,
    greeting: Option<String>,
    suggested_prompts: Vec<String>,
    theme_color: String,
    avatar_url: Option<String>,
    persistence: Persistence,
    retention_days: Option<u32>,
    status: PublicationStatus,
    mode: PublicationMode,
    allowed_domains: Option<Vec<String>>,
    identity: Identity,
    public_tools: Vec<String>,
    limits: LimitsView,
    /// `{CONFER_PUBLIC_URL}/c/{slug}`.
    url: String,
    embed_snippet: String,
    is_active: bool,
    /// `private` iff identity is `required`.
    visibility: &'static str,
    /// Its own list (or the org's), each covered by the org's list now.
    effective_allowed_domains: Vec<String>,
    has_identity_secret: bool,
    generation: u64,
    created_at: String,
    updated_at: String,
    /// The identity secret, only in the answer that made it.
    #[serde(skip_serializing_if = "Option::is_none")]
    identity_secret: Option<String>,
}

/// `{CONFER_PUBLIC_URL}/c/{slug}`.
pub fn page_url(state: &AppState, slug: &str) -> String {
    format!(
        "{}/c/{slug}",
        state.settings.public_url().trim_end_matches('/')
    )
}

impl PublicationView {
    fn of(
        state: &AppState,
        publication: Publication,
        org_domains: &[crate::publishing::EmbedOrigin],
        identity_secret: Option<String>,
    ) -> Self {
        let url = page_url(state, &publication.slug);
        let effective = publication
            .effective_domains(org_domains)
            .iter()
            .map(ToString::to_string)
            .collect();
        Self {
            id: publication.id.to_string(),
            org_id: publication.org_id.to_string(),
            agent_id: publication.agent_id.to_string(),
            embed_snippet: format!("<script async src=\"{url}/embed.js\"></script>"),
            url,
            is_active: publication.is_active(),
            visibility: publication.identity.visibility(),
            effective_allowed_domains: effective,
            has_identity_secret: publication.identity_secret.is_some(),
            limits: LimitsView::from(&publication.limits),
            slug: publication.slug,
            title: publication.title,
            description: publication.description,
            greeting: publication.greeting,
            suggested_prompts: publication.suggested_prompts,
            theme_color: publication.theme_color,
            avatar_url: publication.avatar_url,
            persistence: publication.persistence,
            retention_days: publication.retention_days,
            status: publication.status,
            mode: publication.mode,
            allowed_domains: publication.allowed_domains,
            identity: publication.identity,
            public_tools: publication.public_tools,
            generation: publication.generation,
            created_at: timestamp(publication.created_at),
            updated_at: timestamp(publication.updated_at),
            identity_secret,
        }
    }
}

/// `POST` and `PATCH` body: only the fields present change (`null` clears a
/// nullable one). `slug` only on POST; `rotateIdentitySecret` and
/// `revokeSessions` only on PATCH.
#[derive(Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublicationBody {
    slug: Option<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    title: Patch<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    description: Patch<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    greeting: Patch<String>,
    #[serde(default)]
    #[schema(value_type = Option<Vec<String>>)]
    suggested_prompts: Patch<Vec<String>>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    theme_color: Patch<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    avatar_url: Patch<String>,
    /// `local`, `session` or `none`.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    persistence: Patch<String>,
    #[serde(default)]
    #[schema(value_type = Option<i64>)]
    retention_days: Patch<i64>,
    /// `active` or `paused`.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    status: Patch<String>,
    /// `single` or `multiplayer` (for new threads).
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    mode: Patch<String>,
    #[serde(default)]
    #[schema(value_type = Option<Vec<String>>)]
    allowed_domains: Patch<Vec<String>>,
    /// `anonymous`, `optional` or `required`.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    identity: Patch<String>,
    /// Upstream's alias of identity: `public` or `private`.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    visibility: Patch<String>,
    #[serde(default)]
    #[schema(value_type = Option<Vec<String>>)]
    public_tools: Patch<Vec<String>>,
    /// Merged by key: `visitorMessagesPerMinute`, `ipMessagesPerMinute`,
    /// `maxConcurrentTurns`, `maxMessageChars`, `dailyTokenBudget`,
    /// `maxOutputTokens`.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    limits: Patch<Map<String, Value>>,
    rotate_identity_secret: Option<bool>,
    revoke_sessions: Option<bool>,
}

impl PublicationBody {
    fn changes(self) -> PublicationChanges {
        PublicationChanges {
            title: self.title.into_change(),
            description: self.description.into_change(),
            greeting: self.greeting.into_change(),
            suggested_prompts: self.suggested_prompts.into_change(),
            theme_color: self.theme_color.into_change(),
            avatar_url: self.avatar_url.into_change(),
            persistence: self.persistence.into_change(),
            retention_days: self.retention_days.into_change(),
            status: self.status.into_change(),
            mode: self.mode.into_change(),
            allowed_domains: self.allowed_domains.into_change(),
            identity: self.identity.into_change(),
            visibility: self.visibility.into_change(),
            public_tools: self.public_tools.into_change(),
            limits: self.limits.into_change(),
            rotate_identity_secret: self.rotate_identity_secret.unwrap_or(false),
            revoke_sessions: self.revoke_sessions.unwrap_or(false),
        }
    }
}

/// `n` random bytes from the OS.
fn random<const N: usize>() -> Result<[u8; N], ApiError> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|_| ApiError::Internal("no randomness".into()))?;
    Ok(bytes)
}

/// A new identity secret: `cfi_` + 64 hex. Drawn before the change is
/// applied (the rules take it only when they need one).
fn identity_secret() -> Result<String, ApiError> {
    Ok(format!("cfi_{}", hex::encode(random::<32>()?)))
}

fn not_published() -> ApiError {
    ApiError::NotFound("publication: the agent is not published".into())
}

/// The org's embed domains, parsed.
async fn org_domains(
    state: &AppState,
    org: confer_actors::OrgId,
) -> Result<Vec<crate::publishing::EmbedOrigin>, ApiError> {
    Ok(state
        .store
        .run(move |s| s.org_settings(org))
        .await?
        .origins())
}

/// `GET /api/agents/{id}/publish`
#[utoipa::path(get, path = "/api/agents/{agent_id}/publish", tag = "publishing", operation_id = "publish_get", security(("bearer" = ["member"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), responses((status = 200, description = "The publication", body = PublicationView), (status = 404, description = "`publication: the agent is not published`", body = crate::error::ErrorBody<'static>)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<AgentId>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let org = caller.org_id;
    let (publication, settings) = state
        .store
        .run(move |s| Ok((s.publication(org, agent.id)?, s.org_settings(org)?)))
        .await?;
    let publication = publication.ok_or_else(not_published)?;
    Ok(HttpResponse::Ok().json(PublicationView::of(
        &state,
        publication,
        &settings.origins(),
        None,
    )))
}

/// `POST /api/agents/{id}/publish`: 201 with the publication (and its
/// identity secret, once, when identity is not `anonymous`).
#[utoipa::path(post, path = "/api/agents/{agent_id}/publish", tag = "publishing", operation_id = "publish_create", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = PublicationBody, responses((status = 201, description = "The publication", body = PublicationView), (status = 409, description = "The agent is published, or the slug is taken", body = crate::error::ErrorBody<'static>), (status = 422, description = "A field breaks its rule (the detail names it)", body = crate::error::ErrorBody<'static>)))]
pub async fn create(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<PublicationBody>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let org = caller.org_id;
    let body = body.into_inner();
    let slug = match body.slug.clone() {
        Some(slug) if rules::is_valid_slug(&slug) => slug,
        Some(_) => {
            return Err(ApiError::invalid(
                "slug",
                "3 to 48 of a-z, 0-9 and -, starting and ending with a letter or digit",
            ));
        }
        None => rules::generated_slug(&agent.name, random()?),
    };
    let domains = org_domains(&state, org).await?;
    let base = Publication::new(org, agent.id, slug);
    let fresh = identity_secret()?;
    let (publication, applied) =
        rules::create(base, &agent.name, body.changes(), &domains, || fresh)?;
    let shown = applied.new_identity_secret.clone();
    let created = state
        .store
        .write(move |s| {
            let mut publication = publication;
            if let Some(plain) = &applied.new_identity_secret {
                publication.identity_secret = Some(s.seal_identity_secret(&publication, plain)?);
            }
            s.create_publication(&publication)
        })
        .await?;
    match created {
        PublicationCreated::Stored(publication) => Ok(HttpResponse::Created()
            .json(PublicationView::of(&state, *publication, &domains, shown))),
        PublicationCreated::AlreadyPublished => Err(ApiError::Conflict(
            "publication: the agent is already published".into(),
        )),
        PublicationCreated::SlugTaken => Err(ApiError::Conflict("slug: already taken".into())),
    }
}

/// `PATCH /api/agents/{id}/publish`: compare-and-swap; `slug` never
/// changes.
#[utoipa::path(patch, path = "/api/agents/{agent_id}/publish", tag = "publishing", operation_id = "publish_update", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), request_body = PublicationBody, responses((status = 200, description = "The publication", body = PublicationView), (status = 404, description = "Not published", body = crate::error::ErrorBody<'static>), (status = 422, description = "A field breaks its rule (the detail names it)", body = crate::error::ErrorBody<'static>)))]
pub async fn update(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
    body: JsonBody<PublicationBody>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let org = caller.org_id;
    let body = body.into_inner();
    if body.slug.is_some() {
        return Err(ApiError::invalid(
            "slug",
            "never changes (the page's URL is stable)",
        ));
    }
    let changes = body.changes();
    let domains = org_domains(&state, org).await?;
    let checked = domains.clone();
    let fresh = identity_secret()?;
    let (outcome, shown) = state
        .store
        .write(move |s| {
            let mut shown = None;
            let outcome = s.update_publication(org, agent.id, |publication| {
                let (mut publication, applied) =
                    rules::apply(publication, changes.clone(), &checked, || fresh.clone())?;
                if let Some(plain) = applied.new_identity_secret {
                    publication.identity_secret =
                        Some(s.seal_identity_secret(&publication, &plain)?);
                    shown = Some(plain);
                }
                Ok::<_, ApiError>(publication)
            })?;
            Ok((outcome, shown))
        })
        .await?;
    let publication = match outcome {
        Updated::Stored(publication) => publication,
        Updated::Gone => return Err(not_published()),
        Updated::Refused(error) => return Err(error),
    };
    Ok(HttpResponse::Ok().json(PublicationView::of(&state, publication, &domains, shown)))
}

/// `DELETE /api/agents/{id}/publish`: the record and its slug go in one
/// transaction; the slug is free at once.
#[utoipa::path(delete, path = "/api/agents/{agent_id}/publish", tag = "publishing", operation_id = "publish_delete", security(("bearer" = ["admin"])), params(("agent_id" = uuid::Uuid, Path, description = "The agent's id")), responses((status = 200, description = "Deleted", body = super::Ok), (status = 404, description = "Not published", body = crate::error::ErrorBody<'static>)))]
pub async fn delete(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<AgentId>,
) -> Result<HttpResponse, ApiError> {
    let agent = live_agent(&state, &caller, path.into_inner()).await?;
    let org = caller.org_id;
    state
        .store
        .write(move |s| s.delete_publication(org, agent.id))
        .await?
        .ok_or_else(not_published)?;
    Ok(HttpResponse::Ok().json(super::Ok { ok: true }))
}

/// An agent's `published_chats` item.
#[derive(Serialize, utoipa::ToSchema)]
pub struct PublishedChat {
    id: String,
    slug: String,
    url: String,
    status: PublicationStatus,
    is_active: bool,
    mode: PublicationMode,
}

impl PublishedChat {
    /// The item of `publication`.
    pub fn of(state: &AppState, publication: &Publication) -> Self {
        Self {
            id: publication.id.to_string(),
            slug: publication.slug.clone(),
            url: page_url(state, &publication.slug),
            status: publication.status,
            is_active: publication.is_active(),
            mode: publication.mode,
        }
    }
}
