//! `/api/code-agents` (`computer.md` §5): list and read (A M), create,
//! PATCH and delete (A). A body is JSON, or multipart with a `config`
//! part (the same JSON, without a repository URL) and an `archive` part
//! streamed to a scratch file, checked entry by entry and kept (fsynced)
//! before the record names it. Rules: `crate::code::agents`.

use actix_web::{HttpRequest, HttpResponse, web};
use chrono::{DateTime, Utc};
use confer_actors::{AgentId, CodeAgentId, OrgId};
use serde::Serialize;

mod body;

use self::body::{keep_archive, read_body};
use super::agents::live_agent;
use crate::auth::{Admin, Member};
use crate::code::agents::{CodeAgent, RepositoryKind};
use crate::code::changes::CodeAgentInput;
use crate::code::sessions::SessionStatus;
use crate::computer::config::{Network, SizeClass};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::code::CodeAgentCreated;
use crate::store::update::Updated;

/// An uploaded archive, as shown.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ArchiveView {
    filename: String,
    bytes: u64,
    sha256: String,
}

/// A repository, as shown (never its token).
#[derive(Serialize, utoipa::ToSchema)]
pub struct RepositoryView {
    kind: RepositoryKind,
    url: Option<String>,
    branch: Option<String>,
    depth: Option<u32>,
    has_token: bool,
    archive: Option<ArchiveView>,
}

/// A code agent's sandbox settings (the computer configuration's fields
/// but `enabled`).
#[derive(Serialize, utoipa::ToSchema)]
pub struct CodeComputerView {
    size_class: SizeClass,
    idle_timeout_secs: u64,
    max_command_secs: u64,
    output_limit_bytes: usize,
    network: Network,
    env: std::collections::BTreeMap<String, String>,
}

/// A code agent as every route answers it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct CodeAgentView {
    #[schema(value_type = uuid::Uuid)]
    id: CodeAgentId,
    #[schema(value_type = uuid::Uuid)]
    org_id: OrgId,
    #[schema(value_type = uuid::Uuid)]
    agent_id: AgentId,
    name: String,
    description: String,
    repository: RepositoryView,
    setup_command: Option<String>,
    setup_timeout_secs: u64,
    allowed_commands: Option<Vec<String>>,
    max_steps: u32,
    turn_timeout_mins: u32,
    computer: CodeComputerView,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

impl From<CodeAgent> for CodeAgentView {
    fn from(agent: CodeAgent) -> Self {
        let repository = agent.repository;
        let computer = agent.computer;
        Self {
            id: agent.id,
            org_id: agent.org_id,
            agent_id: agent.agent_id,
            name: agent.name,
            description: agent.description,
            repository: RepositoryView {
                kind: repository.kind,
                url: repository.url,
                branch: repository.branch,
                depth: repository.depth,
                has_token: repository.token.is_some(),
                archive: repository.archive.map(|a| ArchiveView {
                    filename: a.filename,
                    bytes: a.bytes,
                    sha256: a.sha256,
                }),
            },
            setup_command: agent.setup_command,
            setup_timeout_secs: agent.setup_timeout_secs,
            allowed_commands: agent.allowed_commands,
            max_steps: agent.max_steps,
            turn_timeout_mins: agent.turn_timeout_mins,
            computer: CodeComputerView {
                size_class: computer.size_class,
                idle_timeout_secs: computer.idle_timeout_secs,
                max_command_secs: computer.max_command_secs,
                output_limit_bytes: computer.output_limit_bytes,
                network: computer.network,
                env: computer.env,
            },
            created_at: agent.created_at,
            updated_at: agent.updated_at,
        }
    }
}

/// The outbound policy's shape check of a repository URL.
fn url_check(state: &AppState) -> impl Fn(&str) -> Result<(), String> + '_ {
    |url| state.outbound.policy().check_url(url).map(|_| ())
}

/// `GET /api/code-agents`: oldest first.
#[utoipa::path(get, path = "/api/code-agents", tag = "code agents", operation_id = "code_agents_list", security(("bearer" = ["member"])), responses((status = 200, description = "The org's code agents, oldest first", body = [CodeAgentView])))]
pub async fn list(state: web::Data<AppState>, caller: Member) -> Result<HttpResponse, ApiError> {
    let org = caller.org_id;
    let agents = state.store.run(move |s| s.code_agents(org)).await?;
    let views: Vec<CodeAgentView> = agents.into_iter().map(CodeAgentView::from).collect();
    Ok(HttpResponse::Ok().json(views))
}

/// `POST /api/code-agents`
#[utoipa::path(post, path = "/api/code-agents", tag = "code agents", operation_id = "code_agents_create", security(("bearer" = ["admin"])), request_body(content = CodeAgentInput, description = "JSON, or `multipart/form-data` with a `config` part (this JSON without `repository.url`) and an `archive` part (tar, tar.gz or zip)"), responses((status = 201, description = "Created", body = CodeAgentView), (status = 409, description = "The org has 100 code agents", body = crate::error::ErrorBody<'static>), (status = 413, description = "`archive` past `CONFER_CODE_ARCHIVE_MAX_BYTES`", body = crate::error::ErrorBody<'static>), (status = 422, description = "A field out of its rule (named), `agentId: no such agent`, `archive: {entry}: {why}`", body = crate::error::ErrorBody<'static>)))]
pub async fn create(
    state: web::Data<AppState>,
    caller: Admin,
    request: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (input, upload) = read_body(&state, &request, payload).await?;
    let org = caller.org_id;
    if let Some(agent) = input.agent_id {
        live_agent(&state, &caller, agent)
            .await
            .map_err(|_| ApiError::invalid("agentId", "no such agent"))?;
    }
    let id = CodeAgentId::new();
    let kept = match upload {
        Some(upload) => Some(keep_archive(&state, org, id, upload).await?),
        None => None,
    };
    let agent = input
        .create(
            org,
            id,
            kept.as_ref().map(|k| k.info.clone()),
            url_check(&state),
        )
        .map_err(|(field, why)| ApiError::invalid(&field, why))?;
    match state
        .store
        .write(move |s| s.create_code_agent(agent))
        .await?
    {
        CodeAgentCreated::Stored(agent) => {
            if let Some(kept) = kept {
                kept.commit();
            }
            Ok(HttpResponse::Created().json(CodeAgentView::from(*agent)))
        }
        CodeAgentCreated::Full => Err(ApiError::Conflict(format!(
            "the org has {} code agents",
            crate::code::agents::MAX_CODE_AGENTS_PER_ORG
        ))),
    }
}

async fn stored(state: &AppState, org: OrgId, id: CodeAgentId) -> Result<CodeAgent, ApiError> {
    state
        .store
        .run(move |s| s.code_agent(org, id))
        .await?
        .ok_or_else(|| ApiError::not_found("code agent"))
}

/// `GET /api/code-agents/{id}`
#[utoipa::path(get, path = "/api/code-agents/{code_agent_id}", tag = "code agents", operation_id = "code_agents_get", security(("bearer" = ["member"])), params(("code_agent_id" = uuid::Uuid, Path, description = "The code agent's id")), responses((status = 200, description = "The code agent", body = CodeAgentView)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Member,
    path: web::Path<CodeAgentId>,
) -> Result<HttpResponse, ApiError> {
    let agent = stored(&state, caller.org_id, path.into_inner()).await?;
    Ok(HttpResponse::Ok().json(CodeAgentView::from(agent)))
}

/// `PATCH /api/code-agents/{id}`: any create field but `agentId`; sessions
/// started later use the change.
#[utoipa::path(patch, path = "/api/code-agents/{code_agent_id}", tag = "code agents", operation_id = "code_agents_update", security(("bearer" = ["admin"])), params(("code_agent_id" = uuid::Uuid, Path, description = "The code agent's id")), request_body(content = CodeAgentInput, description = "JSON, or multipart with a `config` part and a new `archive`"), responses((status = 200, description = "Changed", body = CodeAgentView), (status = 413, description = "`archive` past `CONFER_CODE_ARCHIVE_MAX_BYTES`", body = crate::error::ErrorBody<'static>), (status = 422, description = "A field out of its rule (named)", body = crate::error::ErrorBody<'static>)))]
pub async fn update(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<CodeAgentId>,
    request: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = (caller.org_id, path.into_inner());
    let before = stored(&state, org, id).await?;
    let (input, upload) = read_body(&state, &request, payload).await?;
    if input.agent_id.is_some_and(|agent| agent != before.agent_id) {
        return Err(ApiError::invalid("agentId", "cannot change"));
    }
    // Checked before the upload is kept, for the answer's detail; the
    // swap applies the change again to the record as stored.
    input
        .clone()
        .apply(before, None, url_check(&state))
        .map_err(|(field, why)| ApiError::invalid(&field, why))?;
    let kept = match upload {
        Some(upload) => Some(keep_archive(&state, org, id, upload).await?),
        None => None,
    };
    let archive = kept.as_ref().map(|k| k.info.clone());
    let policy = state.outbound.policy().clone();
    let (updated, replaced) = state
        .store
        .write(move |s| {
            // The archive of the record the swap replaced (its last try).
            let mut replaced = None;
            let updated = s.update_code_agent(org, id, |current| {
                replaced = current
                    .repository
                    .archive
                    .as_ref()
                    .map(|a| a.stored_as.clone());
                let check = |url: &str| policy.check_url(url).map(|_| ());
                input
                    .clone()
                    .apply(current, archive.clone(), check)
                    .map_err(|(field, why)| ApiError::invalid(&field, why))
            })?;
            Ok::<_, confer_actors::StoreError>((updated, replaced))
        })
        .await?;
    let agent = match updated {
        Updated::Stored(agent) => agent,
        Updated::Gone => return Err(ApiError::not_found("code agent")),
        Updated::Refused(error) => return Err(error),
    };
    if let Some(kept) = kept {
        kept.commit();
    }
    let now_kept = agent.repository.archive.as_ref().map(|a| &a.stored_as);
    if let Some(old) = replaced.filter(|old| Some(old) != now_kept) {
        remove_archive(&state, org, old).await;
    }
    Ok(HttpResponse::Ok().json(CodeAgentView::from(agent)))
}

/// Removes a kept archive no record names any more (a failure is logged:
/// the file is then only disk, never read).
async fn remove_archive(state: &AppState, org: OrgId, name: String) {
    let archives = state.code_archives.clone();
    let removed = web::block(move || archives.remove(org, &name)).await;
    if !matches!(removed, Ok(Ok(()))) {
        tracing::warn!(%org, "a replaced code archive was not removed");
    }
}

/// The answer of a delete.
#[derive(Serialize, utoipa::ToSchema)]
pub struct CodeAgentDeleted {
    ok: bool,
}

/// `DELETE /api/code-agents/{id}`: the record and its archive; its
/// sessions are archived (and stay readable).
#[utoipa::path(delete, path = "/api/code-agents/{code_agent_id}", tag = "code agents", operation_id = "code_agents_delete", security(("bearer" = ["admin"])), params(("code_agent_id" = uuid::Uuid, Path, description = "The code agent's id")), responses((status = 200, description = "Deleted", body = CodeAgentDeleted)))]
pub async fn delete(
    state: web::Data<AppState>,
    caller: Admin,
    path: web::Path<CodeAgentId>,
) -> Result<HttpResponse, ApiError> {
    let (org, id) = (caller.org_id, path.into_inner());
    let removed = state
        .store
        .write(move |s| s.delete_code_agent(org, id))
        .await?
        .ok_or_else(|| ApiError::not_found("code agent"))?;
    if let Some(archive) = removed.repository.archive {
        remove_archive(&state, org, archive.stored_as).await;
    }
    // Its sessions are archived, and stay readable.
    let sessions = state
        .store
        .run(move |s| {
            s.code_sessions(org, None, usize::MAX, |session| {
                session.code_agent_id == id && session.status != SessionStatus::Archived
            })
        })
        .await?;
    for session in sessions {
        if let Err(error) = state.code_sessions.archive(&session).await {
            tracing::warn!(session = %session.id, %error, "a deleted code agent's session was not archived");
        }
    }
    Ok(HttpResponse::Ok().json(CodeAgentDeleted { ok: true }))
}
