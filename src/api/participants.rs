//! `/api/threads/{id}/participants`: the members of a multiplayer thread.

use actix_web::{HttpResponse, web};
use chrono::Utc;
use confer_actors::{Participant, ParticipantRole, Thread, ThreadId, ThreadKind};
use serde::{Deserialize, Serialize};

use super::extract::JsonBody;
use super::timestamp;
use crate::auth::access::ThreadRight;
use crate::auth::{Caller, access};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::port::{self, PlainConfig};
use crate::store::threads::ParticipantPut;

/// A participant as returned.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ParticipantView {
    user_id: String,
    display_name: Option<String>,
    role: ParticipantRole,
    joined_at: String,
}

impl From<Participant> for ParticipantView {
    fn from(p: Participant) -> Self {
        Self {
            user_id: p.user_id,
            display_name: p.display_name,
            role: p.role,
            joined_at: timestamp(p.joined_at),
        }
    }
}

/// `POST` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddParticipant {
    user_id: String,
    display_name: Option<String>,
    role: Option<ParticipantRole>,
}

/// `DELETE` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RemoveParticipant {
    user_id: String,
}

#[derive(Serialize, utoipa::ToSchema)]
struct ParticipantList {
    participants: Vec<ParticipantView>,
}

/// A multiplayer thread on which the caller has `need` (422 on a `single`
/// thread).
async fn multiplayer(
    state: &AppState,
    caller: &Caller,
    id: ThreadId,
    need: ThreadRight,
) -> Result<Thread, ApiError> {
    let thread = access::thread_for(state, caller, id, need).await?;
    if thread.kind != ThreadKind::Multiplayer {
        return Err(ApiError::Validation(
            "thread: participants exist only on multiplayer threads".into(),
        ));
    }
    Ok(thread)
}

/// `GET`: `{participants: [...]}`.
#[utoipa::path(get, path = "/api/threads/{thread_id}/participants", tag = "threads", operation_id = "participants_list", security(("bearer" = [])), params(("thread_id" = uuid::Uuid, Path, description = "The thread's id")), responses((status = 200, description = "The multiplayer thread's participants", body = ParticipantList)))]
pub async fn list(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ThreadId>,
) -> Result<HttpResponse, ApiError> {
    let thread = multiplayer(&state, &caller, path.into_inner(), ThreadRight::Read).await?;
    let participants = state.store.threads().participants(thread.id).await?;
    Ok(HttpResponse::Ok().json(ParticipantList {
        participants: participants
            .into_iter()
            .map(ParticipantView::from)
            .collect(),
    }))
}

/// `POST`: 201 with a new participant, 200 when it updated an existing one.
/// The agent's multiplayer configuration (`publishing.md`) applies: a new
/// participant past `maxParticipants` is 409, and under `whoCanInvite:
/// owner` an end user who is not an owner of the thread is 403.
#[utoipa::path(post, path = "/api/threads/{thread_id}/participants", tag = "threads", operation_id = "participants_add", security(("bearer" = [])), params(("thread_id" = uuid::Uuid, Path, description = "The thread's id")), request_body = AddParticipant, responses((status = 201, description = "Added (200 when already a participant)", body = ParticipantView)))]
pub async fn add(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ThreadId>,
    body: JsonBody<AddParticipant>,
) -> Result<HttpResponse, ApiError> {
    let inviter = caller.jwt_user().map(|u| u.sub.clone());
    let thread =
        access::thread_for(&state, &caller, path.into_inner(), ThreadRight::Change).await?;
    let (org, agent, id) = (thread.org_id, thread.agent_id, thread.id);
    let config: crate::publishing::MultiplayerConfig =
        port::agent_config(state.store.configs(), org, agent, PlainConfig::Multiplayer).await?;
    let inviter = match inviter {
        Some(user) => {
            let participants = state.store.threads().participants(id).await?;
            participants.into_iter().find(|p| p.user_id == user)
        }
        None => None,
    };
    if thread.kind != ThreadKind::Multiplayer {
        return Err(ApiError::Validation(
            "thread: participants exist only on multiplayer threads".into(),
        ));
    }
    let is_owner = caller.sees_whole_org()
        || caller
            .jwt_user()
            .is_some_and(|u| u.sub == thread.created_by)
        || inviter.is_some_and(|p| p.role == ParticipantRole::Owner);
    config.who_can_invite.check(is_owner)?;
    let body = body.into_inner();
    let user_id = body.user_id.trim().to_owned();
    if user_id.is_empty() {
        return Err(ApiError::invalid("userId", "must not be empty"));
    }
    // Re-adding keeps the original join time; a thread deleted meanwhile is 404.
    let participant = Participant {
        user_id,
        display_name: body.display_name,
        role: body.role.unwrap_or_default(),
        joined_at: Utc::now(),
    };
    let cap = config.max_participants as usize; // at most 100
    let put = state
        .store
        .threads()
        .put_participant(thread.org_id, thread.id, participant, Some(cap))
        .await?;
    let (participant, replaced) = match put {
        ParticipantPut::Stored {
            participant,
            replaced,
        } => (participant, replaced),
        ParticipantPut::ThreadGone => return Err(ApiError::not_found("thread")),
        ParticipantPut::Full => {
            return Err(ApiError::Conflict(format!(
                "participants: the thread is full ({cap})"
            )));
        }
    };
    let mut response = if replaced {
        HttpResponse::Ok()
    } else {
        HttpResponse::Created()
    };
    Ok(response.json(ParticipantView::from(participant)))
}

/// `DELETE` with body `{userId}`: 404 when that user is not a participant.
#[utoipa::path(delete, path = "/api/threads/{thread_id}/participants", tag = "threads", operation_id = "participants_remove", security(("bearer" = [])), params(("thread_id" = uuid::Uuid, Path, description = "The thread's id")), request_body = RemoveParticipant, responses((status = 200, description = "Removed", body = super::Ok)))]
pub async fn remove(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ThreadId>,
    body: JsonBody<RemoveParticipant>,
) -> Result<HttpResponse, ApiError> {
    let thread = multiplayer(&state, &caller, path.into_inner(), ThreadRight::Change).await?;
    let user_id = body.into_inner().user_id;
    let removed = state
        .store
        .threads()
        .remove_participant(thread.org_id, thread.id, user_id)
        .await?;
    if !removed {
        return Err(ApiError::not_found("participant"));
    }
    Ok(HttpResponse::Ok().json(super::Ok { ok: true }))
}
