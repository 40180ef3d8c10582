//! Who is in a visitor's multiplayer thread: invite links, joining by one,
//! the participant list and leaving or removing (`publishing.md`
//! "Visitors" rule 5, "Multiplayer configuration" rules 1–3). Invite codes
//! are derived, never stored: rotating bumps the thread's invite
//! generation, and the old code stops matching.

use actix_web::{HttpResponse, web};
use chrono::Utc;
use confer_actors::{Participant, ParticipantRole, Thread, ThreadId, ThreadKind};
use serde::{Deserialize, Serialize};

use super::threads::VisitorThread;
use crate::api::extract::{JsonBody, parse_json};
use crate::api::timestamp;
use crate::auth::access;
use crate::auth::visitor::Visitor;
use crate::error::{ApiError, stored};
use crate::publishing::multiplayer_config;
use crate::publishing::names::display_name;
use crate::publishing::visitors::participant_id;
use crate::state::AppState;
use crate::store::threads::ParticipantPut;

/// `POST …/invite` body (optional).
#[derive(Default, Deserialize, utoipa::ToSchema)]
pub struct InviteRequest {
    /// Make a new code; the old one stops working.
    #[serde(default)]
    rotate: bool,
}

/// `POST …/invite` answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Invite {
    /// `{public url}/c/{slug}#join={threadId}.{code}`: the code stays in the
    /// fragment, out of logs and `Referer`.
    invite_url: String,
}

/// `POST …/join` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct JoinRequest {
    code: String,
    display_name: Option<String>,
}

/// A participant as a visitor sees it: an id that hides visitor ids and
/// host `sub`s.
#[derive(Serialize, utoipa::ToSchema)]
pub struct VisitorParticipant {
    id: String,
    display_name: Option<String>,
    role: ParticipantRole,
    joined_at: String,
    is_you: bool,
}

/// `GET …/participants` answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct VisitorParticipants {
    participants: Vec<VisitorParticipant>,
}

/// `DELETE …/participants` body.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RemoveRequest {
    participant_id: String,
}

fn only_multiplayer(thread: &Thread) -> Result<(), ApiError> {
    if thread.kind != ThreadKind::Multiplayer {
        return Err(ApiError::Validation(
            "thread: a single chat has no participants or invitations".into(),
        ));
    }
    Ok(())
}

/// `POST /api/public/chat/{slug}/threads/{id}/invite`.
#[utoipa::path(post, path = "/api/public/chat/{slug}/threads/{thread_id}/invite", tag = "publishing", operation_id = "public_invite", security(("visitor" = [])), params(("slug" = String, Path, description = "The publication's slug"), ("thread_id" = uuid::Uuid, Path, description = "The thread's id")), request_body = Option<InviteRequest>, responses((status = 200, description = "The invite link", body = Invite), (status = 403, description = "`whoCanInvite: owner` and the visitor is not an owner", body = crate::error::ErrorBody<'static>), (status = 422, description = "A single thread", body = crate::error::ErrorBody<'static>)))]
pub async fn invite(
    state: web::Data<AppState>,
    visitor: Visitor,
    path: web::Path<(String, ThreadId)>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let body: InviteRequest = if body.iter().all(u8::is_ascii_whitespace) {
        InviteRequest::default()
    } else {
        parse_json(&body)?
    };
    let user = visitor.user_id.clone();
    let thread = access::visitor_thread(&state, &visitor, path.into_inner().1).await?;
    let (config, me) = tokio::try_join!(
        multiplayer_config(&state.store, thread.org_id, thread.agent_id),
        access::participant(&state, thread.id, &user),
    )?;
    only_multiplayer(&thread)?;
    let is_owner = me.is_some_and(|p| p.role == ParticipantRole::Owner);
    config.who_can_invite.check(is_owner)?;
    let thread = if body.rotate {
        let (org, id) = (thread.org_id, thread.id);
        let outcome = state
            .store
            .threads()
            .update_thread(
                org,
                id,
                Box::new(|mut thread| {
                    thread.invite_generation += 1;
                    Ok(thread)
                }),
            )
            .await?;
        stored(outcome, "thread")?
    } else {
        thread
    };
    let code = state
        .public
        .keys
        .invite_code(thread.id, thread.invite_generation);
    let invite_url = format!(
        "{}/c/{}#join={}.{code}",
        state.settings.public_url().trim_end_matches('/'),
        visitor.publication.slug,
        thread.id
    );
    Ok(HttpResponse::Ok()
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-store"))
        .json(Invite { invite_url }))
}

/// `POST /api/public/chat/{slug}/threads/{id}/join`: a wrong code, or a
/// thread of another chat, is 404; past the cap 409.
#[utoipa::path(post, path = "/api/public/chat/{slug}/threads/{thread_id}/join", tag = "publishing", operation_id = "public_join", security(("visitor" = [])), params(("slug" = String, Path, description = "The publication's slug"), ("thread_id" = uuid::Uuid, Path, description = "The thread's id")), request_body = JoinRequest, responses((status = 200, description = "The joined thread", body = VisitorThread), (status = 404, description = "No thread with that code", body = crate::error::ErrorBody<'static>), (status = 409, description = "The thread is full", body = crate::error::ErrorBody<'static>)))]
pub async fn join(
    state: web::Data<AppState>,
    visitor: Visitor,
    path: web::Path<(String, ThreadId)>,
    body: JsonBody<JoinRequest>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let id = path.into_inner().1;
    let publication = visitor.publication.clone();
    let user = visitor.user_id.clone();
    let found = match state.store.threads().thread(publication.org_id, id).await? {
        None => None,
        Some(thread) => {
            let (config, members) = tokio::try_join!(
                multiplayer_config(&state.store, thread.org_id, thread.agent_id),
                state.store.threads().participants(thread.id),
            )?;
            Some((thread, config, members))
        }
    };
    let keys = &state.public.keys;
    let (thread, config, members) = found
        .filter(|(thread, _, _)| {
            thread.publication_id == Some(visitor.publication.id)
                && thread.kind == ThreadKind::Multiplayer
                && keys.invite_matches(thread.id, thread.invite_generation, &body.code)
        })
        .ok_or_else(|| ApiError::not_found("thread"))?;
    if let Some(me) = members.iter().find(|p| p.user_id == user) {
        return Ok(HttpResponse::Ok().json(VisitorThread::new(thread, Some(me))));
    }
    let taken: Vec<String> = members
        .iter()
        .filter_map(|p| p.display_name.clone())
        .collect();
    let name = display_name(
        config.display_names,
        body.display_name.as_deref(),
        visitor.name.as_deref(),
        &taken,
    )?;
    let participant = Participant {
        user_id: user,
        display_name: Some(name),
        role: ParticipantRole::Member,
        joined_at: Utc::now(),
    };
    let cap = config.max_participants as usize;
    let (org, thread_id) = (thread.org_id, thread.id);
    let put = state
        .store
        .threads()
        .put_participant(org, thread_id, participant, Some(cap))
        .await?;
    match put {
        ParticipantPut::Stored { participant, .. } => {
            Ok(HttpResponse::Ok().json(VisitorThread::new(thread, Some(&participant))))
        }
        ParticipantPut::ThreadGone => Err(ApiError::not_found("thread")),
        ParticipantPut::Full => Err(ApiError::Conflict(format!(
            "participants: the thread is full ({cap})"
        ))),
    }
}

/// `GET /api/public/chat/{slug}/threads/{id}/participants`.
#[utoipa::path(get, path = "/api/public/chat/{slug}/threads/{thread_id}/participants", tag = "publishing", operation_id = "public_participants_list", security(("visitor" = [])), params(("slug" = String, Path, description = "The publication's slug"), ("thread_id" = uuid::Uuid, Path, description = "The thread's id")), responses((status = 200, description = "The thread's participants", body = VisitorParticipants)))]
pub async fn participants(
    state: web::Data<AppState>,
    visitor: Visitor,
    path: web::Path<(String, ThreadId)>,
) -> Result<HttpResponse, ApiError> {
    let thread = access::visitor_thread(&state, &visitor, path.into_inner().1).await?;
    let members = state.store.threads().participants(thread.id).await?;
    only_multiplayer(&thread)?;
    let participants = members
        .into_iter()
        .map(|p| VisitorParticipant {
            id: participant_id(thread.id, &p.user_id),
            is_you: p.user_id == visitor.user_id,
            display_name: p.display_name,
            role: p.role,
            joined_at: timestamp(p.joined_at),
        })
        .collect();
    Ok(HttpResponse::Ok().json(VisitorParticipants { participants }))
}

/// `DELETE /api/public/chat/{slug}/threads/{id}/participants`: owners
/// remove anyone, anyone removes itself, else 403.
#[utoipa::path(delete, path = "/api/public/chat/{slug}/threads/{thread_id}/participants", tag = "publishing", operation_id = "public_participants_remove", security(("visitor" = [])), params(("slug" = String, Path, description = "The publication's slug"), ("thread_id" = uuid::Uuid, Path, description = "The thread's id")), request_body = RemoveRequest, responses((status = 200, description = "Removed", body = crate::api::Ok), (status = 403, description = "Only owners remove others", body = crate::error::ErrorBody<'static>), (status = 404, description = "No such participant", body = crate::error::ErrorBody<'static>)))]
pub async fn remove(
    state: web::Data<AppState>,
    visitor: Visitor,
    path: web::Path<(String, ThreadId)>,
    body: JsonBody<RemoveRequest>,
) -> Result<HttpResponse, ApiError> {
    let wanted = body.into_inner().participant_id;
    let thread = access::visitor_thread(&state, &visitor, path.into_inner().1).await?;
    let members = state.store.threads().participants(thread.id).await?;
    only_multiplayer(&thread)?;
    let target = members
        .iter()
        .find(|p| participant_id(thread.id, &p.user_id) == wanted)
        .ok_or_else(|| ApiError::not_found("participant"))?;
    let is_owner = members
        .iter()
        .any(|p| p.user_id == visitor.user_id && p.role == ParticipantRole::Owner);
    if target.user_id != visitor.user_id && !is_owner {
        return Err(ApiError::Forbidden(
            "participantId: only the thread's owners remove others".into(),
        ));
    }
    let (org, id, user) = (thread.org_id, thread.id, target.user_id.clone());
    let removed = state
        .store
        .threads()
        .remove_participant(org, id, user)
        .await?;
    if !removed {
        return Err(ApiError::not_found("participant"));
    }
    Ok(HttpResponse::Ok().json(crate::api::Ok { ok: true }))
}
