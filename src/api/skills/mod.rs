//! `/api/skills` (`agent-extras.md` §1): the org's skill library. List and
//! read (A M), install ([`install`]), delete and sync (A), browse the
//! library and the catalogue (A M); attachments to agents and runners are
//! [`attachments`]. Rules and sources live in `crate::skills`.

pub mod attachments;
pub mod install;

use std::collections::BTreeMap;

use actix_web::{HttpResponse, web};
use chrono::{DateTime, Utc};
use confer_actors::{OrgId, SkillId};
use serde::{Deserialize, Serialize};

use crate::auth::{Admin, Member};
use crate::error::ApiError;
use crate::skills::install::SyncOutcome;
use crate::skills::{Skill, SkillFileEntry, SkillSource, SyncStatus, catalog};
use crate::state::AppState;

/// A skill as answered (its token never; `has_token` says whether it has
/// one).
#[derive(Serialize, utoipa::ToSchema)]
pub struct SkillView {
    id: SkillId,
    org_id: OrgId,
    name: String,
    description: String,
    license: Option<String>,
    compatibility: Option<String>,
    metadata: BTreeMap<String, String>,
    allowed_tools: Option<String>,
    source: SkillSource,
    source_url: Option<String>,
    source_ref: Option<String>,
    source_path: Option<String>,
    has_token: bool,
    version: u32,
    revision: Option<String>,
    content_hash: String,
    files: Vec<SkillFileEntry>,
    sync_status: Option<SyncStatus>,
    last_error: Option<String>,
    synced_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    /// `SKILL.md` less its front matter (`GET /api/skills/{id}` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<String>,
}

impl From<Skill> for SkillView {
    fn from(skill: Skill) -> Self {
        Self {
            id: skill.id,
            org_id: skill.org_id,
            name: skill.name,
            description: skill.description,
            license: skill.license,
            compatibility: skill.compatibility,
            metadata: skill.metadata,
            allowed_tools: skill.allowed_tools,
            source: skill.source,
            source_url: skill.source_url,
            source_ref: skill.source_ref,
            source_path: skill.source_path,
            has_token: skill.token.is_some(),
            version: skill.version,
            revision: skill.revision,
            content_hash: skill.content_hash,
            files: skill.files,
            sync_status: skill.sync_status,
            last_error: skill.last_error,
            synced_at: skill.synced_at,
            created_at: skill.created_at,
            updated_at: skill.updated_at,
            instructions: None,
        }
    }
}

/// A sync's answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Synced {
    outcome: SyncOutcome,
    skill: SkillView,
}

/// An entry of `browse`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct SkillEntry {
    /// `org:{id}` or `catalog:{name}`.
    key: String,
    name: String,
    description: String,
    source: EntrySource,
    license: Option<String>,
    version: Option<u32>,
    /// The org's skill this entry is (org) or was installed as (catalog).
    installed_id: Option<SkillId>,
}

/// Where a browse entry is.
#[derive(Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum EntrySource {
    Org,
    Catalog,
}

/// `GET /api/skills/browse` query.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BrowseQuery {
    /// A case-insensitive part of the name or description.
    q: Option<String>,
    /// `org` or `catalog` (both when absent).
    source: Option<EntrySource>,
    /// 1–50 (20).
    limit: Option<usize>,
    /// `X-Next-Cursor` of the previous page.
    cursor: Option<String>,
}

/// A skill of the caller's org, or 404.
pub(super) async fn org_skill(
    state: &AppState,
    org: OrgId,
    id: SkillId,
) -> Result<Skill, ApiError> {
    state
        .store
        .skills()
        .skill(org, id)
        .await?
        .ok_or_else(|| ApiError::not_found("skill"))
}

/// `GET /api/skills`
#[utoipa::path(get, path = "/api/skills", tag = "skills", operation_id = "skills_list", security(("bearer" = ["member"])), responses((status = 200, description = "The org's skills, by name", body = [SkillView])))]
pub async fn list(state: web::Data<AppState>, caller: Member) -> Result<HttpResponse, ApiError> {
    let org = caller.org_id;
    let skills = state.store.skills().skills(org).await?;
    let views: Vec<SkillView> = skills.into_iter().map(SkillView::from).collect();
    Ok(HttpResponse::Ok().json(views))
}

/// `GET /api/skills/{id}`: the skill and its instructions.
#[utoipa::path(get, path = "/api/skills/{skill_id}", tag = "skills", operation_id = "skills_get", security(("bearer" = ["member"])), params(("skill_id" = uuid::Uuid, Path, description = "The skill's id")), responses((status = 200, description = "The skill with `instructions`", body = SkillView), (status = 404, description = "No such skill in the org", body = crate::error::ErrorBody<'static>)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<SkillId>,
) -> Result<HttpResponse, ApiError> {
    let skill = org_skill(&state, caller.org_id, path.into_inner()).await?;
    let id = skill.id;
    let skill_md = state
        .store
        .skills()
        .skill_file(id, "SKILL.md".into())
        .await?
        .unwrap_or_default();
    let mut view = SkillView::from(skill);
    view.instructions = Some(crate::skills::instructions(&skill_md));
    Ok(HttpResponse::Ok().json(view))
}

/// `DELETE /api/skills/{id}`: the skill, its files and its attachments.
#[utoipa::path(delete, path = "/api/skills/{skill_id}", tag = "skills", operation_id = "skills_delete", security(("bearer" = ["admin"])), params(("skill_id" = uuid::Uuid, Path, description = "The skill's id")), responses((status = 200, description = "`{ok: true}`: deleted and detached everywhere", body = crate::api::Ok), (status = 404, description = "No such skill in the org", body = crate::error::ErrorBody<'static>)))]
pub async fn delete(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<SkillId>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = (caller.org_id, path.into_inner());
    if !state.store.skills().delete_skill(org, id).await? {
        return Err(ApiError::not_found("skill"));
    }
    Ok(HttpResponse::Ok().json(serde_json::json!({"ok": true})))
}

/// `POST /api/skills/{id}/sync`
#[utoipa::path(post, path = "/api/skills/{skill_id}/sync", tag = "skills", operation_id = "skills_sync", security(("bearer" = ["admin"])), params(("skill_id" = uuid::Uuid, Path, description = "The skill's id")), responses((status = 200, description = "`updated`, `unchanged`, or `failed` (the last good content kept, `last_error` set)", body = Synced), (status = 409, description = "The skill is syncing already", body = crate::error::ErrorBody<'static>), (status = 422, description = "An uploaded skill has no source", body = crate::error::ErrorBody<'static>), (status = 429, description = "`RATE_LIMITED`: 2 fetches of the org under way", body = crate::error::ErrorBody<'static>)))]
pub async fn sync(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<SkillId>,
) -> Result<HttpResponse, ApiError> {
    let skill = org_skill(&state, caller.org_id, path.into_inner()).await?;
    let (outcome, skill) = state.skills.sync(skill).await?;
    Ok(HttpResponse::Ok().json(Synced {
        outcome,
        skill: skill.into(),
    }))
}

/// The browse entries, org skills then the catalogue, each by name.
fn entries(skills: Vec<Skill>, source: Option<EntrySource>) -> Vec<SkillEntry> {
    let mut entries = Vec::new();
    let installed: Vec<(Option<String>, SkillId)> = skills
        .iter()
        .filter(|s| s.source == SkillSource::Catalog)
        .map(|s| (s.source_ref.clone(), s.id))
        .collect();
    if source != Some(EntrySource::Catalog) {
        entries.extend(skills.into_iter().map(|s| SkillEntry {
            key: format!("org:{}", s.id),
            name: s.name,
            description: s.description,
            source: EntrySource::Org,
            license: s.license,
            version: Some(s.version),
            installed_id: Some(s.id),
        }));
    }
    if source != Some(EntrySource::Org) {
        for key in catalog::keys() {
            let Some(Ok(content)) = catalog::content(key) else {
                continue;
            };
            entries.push(SkillEntry {
                key: format!("catalog:{key}"),
                name: content.front.name,
                description: content.front.description,
                source: EntrySource::Catalog,
                license: content.front.license,
                version: None,
                installed_id: installed
                    .iter()
                    .find(|(k, _)| k.as_deref() == Some(key))
                    .map(|(_, id)| *id),
            });
        }
    }
    entries
}

/// `GET /api/skills/browse`
#[utoipa::path(get, path = "/api/skills/browse", tag = "skills", operation_id = "skills_browse", security(("bearer" = ["member"])), params(BrowseQuery), responses((status = 200, description = "Org skills (`org:{id}`), then the catalogue (`catalog:{name}`), each by name; `X-Next-Cursor` when more follow", body = [SkillEntry]), (status = 422, description = "`limit` outside 1–50, or an unknown cursor", body = crate::error::ErrorBody<'static>)))]
pub async fn browse(
    state: web::Data<AppState>,
    caller: Member,
    query: web::Query<BrowseQuery>,
) -> Result<HttpResponse, ApiError> {
    let query = query.into_inner();
    let limit = query.limit.unwrap_or(20);
    if !(1..=50).contains(&limit) {
        return Err(ApiError::invalid("limit", "1 to 50"));
    }
    let org = caller.org_id;
    let skills = state.store.skills().skills(org).await?;
    let needle = query.q.map(|q| q.to_lowercase());
    let mut found: Vec<SkillEntry> = entries(skills, query.source)
        .into_iter()
        .filter(|e| {
            needle.as_ref().is_none_or(|q| {
                e.name.to_lowercase().contains(q) || e.description.to_lowercase().contains(q)
            })
        })
        .collect();
    if let Some(cursor) = &query.cursor {
        let at = found
            .iter()
            .position(|e| &e.key == cursor)
            .ok_or_else(|| ApiError::invalid("cursor", "not an entry of this listing"))?;
        found.drain(..=at);
    }
    let more = found.len() > limit;
    found.truncate(limit);
    let mut response = HttpResponse::Ok();
    if more && let Some(last) = found.last() {
        response.insert_header(("X-Next-Cursor", last.key.clone()));
    }
    Ok(response.json(found))
}
