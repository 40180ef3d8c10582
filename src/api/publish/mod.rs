//! `/api/agents/{id}/publish`: an agent's publication as a public chat
//! (`publishing.md` "Publications"). One per agent; admins write, members
//! read. The rules of its fields are `publishing::rules`; the store keeps
//! the slug unique in the record's own transaction.

use actix_web::{HttpResponse, web};
use confer_actors::AgentId;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::agents::live_agent;
use super::extract::{JsonBody, Patch};
use crate::auth::{Admin, Member};
use crate::error::ApiError;
use crate::publishing::rules::{self, PublicationChanges};
use crate::publishing::{Publication, identity_secret};
use crate::state::AppState;

mod view;

pub use self::view::{LimitsView, PublicationView, PublishedChat, page_url};
use crate::store::publications::PublicationCreated;
use crate::store::update::Updated;

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

/// What follows a publication's delete (its own, or its agent's): its
/// sessions end and its threads leave its index (they stay as org threads,
/// out of retention).
pub async fn unpublished(state: &AppState, publication: &Publication) -> Result<(), ApiError> {
    state.public.slugs.forget(&publication.slug);
    let publication = publication.id;
    state.public.end_sessions(&state.runtime, publication).await;
    state
        .store
        .publications()
        .forget_publication_threads(publication)
        .await?;
    Ok(())
}

/// The tokens `publication`'s visitors spent today (UTC).
async fn spent_today(state: &AppState, publication: &Publication) -> Result<u64, ApiError> {
    let (id, today) = (
        publication.id,
        crate::store::keys::day_number(chrono::Utc::now()),
    );
    Ok(state
        .store
        .publications()
        .publication_tokens(id, today)
        .await?)
}

/// The org's embed domains, parsed.
async fn org_domains(
    state: &AppState,
    org: confer_actors::OrgId,
) -> Result<Vec<crate::publishing::EmbedOrigin>, ApiError> {
    Ok(state
        .store
        .publications()
        .org_settings(org)
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
    let records = state.store.publications();
    let (publication, settings) = tokio::try_join!(
        records.publication(org, agent.id),
        records.org_settings(org)
    )?;
    let publication = publication.ok_or_else(not_published)?;
    let spent = spent_today(&state, &publication).await?;
    Ok(HttpResponse::Ok().json(PublicationView::of(
        &state,
        publication,
        &settings.origins(),
        None,
        spent,
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
    let mut publication = publication;
    if let Some(plain) = &applied.new_identity_secret {
        let secrets = state.store.secrets();
        publication.identity_secret = Some(identity_secret::seal(&secrets, &publication, plain)?);
    }
    let created = state
        .store
        .publications()
        .create_publication(publication)
        .await?;
    match created {
        PublicationCreated::Stored(publication) => Ok(HttpResponse::Created().json(
            PublicationView::of(&state, *publication, &domains, shown, 0),
        )),
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
    // What the last run of the change (the one stored) showed and did.
    let told = std::sync::Arc::new(std::sync::Mutex::new((None, false)));
    let tell = std::sync::Arc::clone(&told);
    let secrets = state.store.secrets();
    let outcome = state
        .store
        .publications()
        .update_publication(
            org,
            agent.id,
            Box::new(move |publication| {
                let before = publication.generation;
                let (mut publication, applied) =
                    rules::apply(publication, changes.clone(), &checked, || fresh.clone())?;
                let mut shown = None;
                if let Some(plain) = applied.new_identity_secret {
                    publication.identity_secret =
                        Some(identity_secret::seal(&secrets, &publication, &plain)?);
                    shown = Some(plain);
                }
                let bumped = publication.generation != before;
                *tell
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = (shown, bumped);
                Ok(publication)
            }),
        )
        .await?;
    let (shown, bumped) = std::mem::take(
        &mut *told
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    let publication = match outcome {
        Updated::Stored(publication) => publication,
        Updated::Gone => return Err(not_published()),
        Updated::Refused(error) => return Err(error),
    };
    state.public.slugs.forget(&publication.slug);
    if bumped {
        state
            .public
            .end_sessions(&state.runtime, publication.id)
            .await;
    }
    let spent = spent_today(&state, &publication).await?;
    Ok(HttpResponse::Ok().json(PublicationView::of(
        &state,
        publication,
        &domains,
        shown,
        spent,
    )))
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
    let deleted = state
        .store
        .publications()
        .delete_publication(org, agent.id)
        .await?
        .ok_or_else(not_published)?;
    unpublished(&state, &deleted).await?;
    Ok(HttpResponse::Ok().json(super::Ok { ok: true }))
}
