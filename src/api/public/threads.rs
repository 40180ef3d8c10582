//! A visitor's threads: `GET, POST /api/public/chat/{slug}/threads` and
//! `GET …/threads/{id}` (`publishing.md` "Visitors" rule 3). A thread's
//! kind is the publication's mode, its creator the visitor, and its
//! metadata names the publication, the visitor and the embedding site.

use actix_web::{HttpResponse, web};
use chrono::Utc;
use confer_actors::{Participant, ParticipantRole, Thread, ThreadId, ThreadKind};
use serde::{Deserialize, Serialize};

use crate::api::extract::parse_json;
use crate::api::{page_limit, parse_cursor, timestamp};
use crate::auth::access;
use crate::auth::visitor::Visitor;
use crate::error::ApiError;
use crate::publishing::names::display_name;
use crate::publishing::{MAX_THREADS_PER_VISITOR, PublicationMode, multiplayer_config};
use crate::state::AppState;
use crate::store::threads::Created;

const DEFAULT_PAGE: u32 = 50;
const MAX_PAGE: u32 = 100;

/// A thread as its visitor sees it.
#[derive(Serialize, utoipa::ToSchema)]
pub struct VisitorThread {
    id: String,
    title: Option<String>,
    kind: ThreadKind,
    /// The visitor's role in a multiplayer thread (`owner`, `member`); null
    /// on a single thread.
    role: Option<ParticipantRole>,
    created_at: String,
    updated_at: String,
}

impl VisitorThread {
    /// `thread` for a visitor whose participant record is `participant`.
    pub fn new(thread: Thread, participant: Option<&Participant>) -> Self {
        Self {
            id: thread.id.to_string(),
            title: thread.title,
            kind: thread.kind,
            role: participant.map(|p| p.role),
            created_at: timestamp(thread.created_at),
            updated_at: timestamp(thread.updated_at),
        }
    }

    /// `thread` with the visitor's participation read from the store.
    pub async fn read(
        state: &AppState,
        thread: Thread,
        user: &str,
    ) -> Result<Self, confer_actors::StoreError> {
        let participant = match thread.kind {
            ThreadKind::Multiplayer => access::participant(state, thread.id, user).await?,
            ThreadKind::Single => None,
        };
        Ok(Self::new(thread, participant.as_ref()))
    }
}

/// `GET …/threads` query.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    cursor: Option<String>,
    limit: Option<u32>,
}

/// `GET …/threads` answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct VisitorThreadPage {
    threads: Vec<VisitorThread>,
    #[serde(rename = "nextCursor")]
    next_cursor: Option<String>,
}

/// `POST …/threads` body.
#[derive(Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateVisitorThread {
    title: Option<String>,
    /// The visitor's name in a multiplayer thread (required when the agent's
    /// `display_names` is `chosen` and the visitor has no host identity).
    display_name: Option<String>,
}

/// `GET /api/public/chat/{slug}/threads`: the visitor's threads of this
/// publication, newest first.
#[utoipa::path(get, path = "/api/public/chat/{slug}/threads", tag = "publishing", operation_id = "public_threads_list", security(("visitor" = [])), params(("slug" = String, Path, description = "The publication's slug"), ListQuery), responses((status = 200, description = "A page of the visitor's threads", body = VisitorThreadPage)))]
pub async fn list(
    state: web::Data<AppState>,
    visitor: Visitor,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let before = parse_cursor(query.cursor.as_deref())?;
    let limit = page_limit(query.limit, DEFAULT_PAGE, MAX_PAGE);
    let publication = &visitor.publication;
    let page = state
        .store
        .threads()
        .list_threads(
            publication.org_id,
            publication.agent_id,
            Some(visitor.user_id.clone()),
            before,
            limit,
        )
        .await?;
    let mut threads = Vec::with_capacity(page.items.len());
    for thread in page.items {
        if access::visitor_may_use(&state, &visitor, &thread).await? {
            threads.push(VisitorThread::read(&state, thread, &visitor.user_id).await?);
        }
    }
    Ok(HttpResponse::Ok().json(VisitorThreadPage {
        threads,
        next_cursor: page.next_cursor.map(timestamp),
    }))
}

/// `GET /api/public/chat/{slug}/threads/{id}`.
#[utoipa::path(get, path = "/api/public/chat/{slug}/threads/{thread_id}", tag = "publishing", operation_id = "public_threads_get", security(("visitor" = [])), params(("slug" = String, Path, description = "The publication's slug"), ("thread_id" = uuid::Uuid, Path, description = "The thread's id")), responses((status = 200, description = "The thread", body = VisitorThread), (status = 404, description = "Not a thread of this visitor", body = crate::error::ErrorBody<'static>)))]
pub async fn get(
    state: web::Data<AppState>,
    visitor: Visitor,
    path: web::Path<(String, ThreadId)>,
) -> Result<HttpResponse, ApiError> {
    let thread = access::visitor_thread(&state, &visitor, path.into_inner().1).await?;
    let participant = access::participant(&state, thread.id, &visitor.user_id).await?;
    Ok(HttpResponse::Ok().json(VisitorThread::new(thread, participant.as_ref())))
}

/// `POST /api/public/chat/{slug}/threads`: counts as a send (the visitor's
/// and the IP's message quotas); at most [`MAX_THREADS_PER_VISITOR`] per
/// visitor (the store counts them as it creates).
#[utoipa::path(post, path = "/api/public/chat/{slug}/threads", tag = "publishing", operation_id = "public_threads_create", security(("visitor" = [])), params(("slug" = String, Path, description = "The publication's slug")), request_body = Option<CreateVisitorThread>, responses((status = 200, description = "The new thread", body = VisitorThread), (status = 409, description = "The visitor has as many threads as it may", body = crate::error::ErrorBody<'static>), (status = 422, description = "`displayName` missing or invalid", body = crate::error::ErrorBody<'static>), (status = 429, description = "`RATE_LIMITED`", body = crate::error::ErrorBody<'static>)))]
pub async fn create(
    state: web::Data<AppState>,
    visitor: Visitor,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let body: CreateVisitorThread = if body.iter().all(u8::is_ascii_whitespace) {
        CreateVisitorThread::default()
    } else {
        parse_json(&body)?
    };
    if let Some(title) = &body.title
        && title.chars().count() > 200
    {
        return Err(ApiError::invalid("title", "at most 200 characters"));
    }
    let publication = visitor.publication.clone();
    let kind = match publication.mode {
        PublicationMode::Single => ThreadKind::Single,
        PublicationMode::Multiplayer => ThreadKind::Multiplayer,
    };
    let now = Utc::now();
    // The owner's name is checked before anything is counted or stored.
    let owner = match kind {
        ThreadKind::Single => None,
        ThreadKind::Multiplayer => {
            let (org, agent) = (publication.org_id, publication.agent_id);
            let rule = multiplayer_config(&state.store, org, agent)
                .await?
                .display_names;
            let name = display_name(
                rule,
                body.display_name.as_deref(),
                visitor.name.as_deref(),
                &[],
            )?;
            Some(Participant {
                user_id: visitor.user_id.clone(),
                display_name: Some(name),
                role: ParticipantRole::Owner,
                joined_at: now,
            })
        }
    };
    visitor.count_send(&state)?;
    let thread = Thread {
        id: ThreadId::new(),
        org_id: publication.org_id,
        agent_id: publication.agent_id,
        title: body.title,
        kind,
        active_profile: None,
        metadata: visitor.metadata(),
        system_prompt_overlay: None,
        resource_bindings: Vec::new(),
        created_by: visitor.user_id.clone(),
        publication_id: Some(publication.id),
        invite_generation: 0,
        origin: None,
        delegation: None,
        project_id: None,
        created_at: now,
        updated_at: now,
    };
    let records = state.store.threads();
    match records
        .create_thread_keyed(thread, owner.clone(), None)
        .await?
    {
        Created::New(stored) => {
            Ok(HttpResponse::Ok().json(VisitorThread::new(*stored, owner.as_ref())))
        }
        Created::VisitorFull => Err(ApiError::Conflict(format!(
            "threads: a visitor may keep {MAX_THREADS_PER_VISITOR} threads in this chat"
        ))),
        _ => Err(ApiError::Conflict(
            "threads: this chat holds as many threads as it may (CONFER_PUBLIC_MAX_THREADS)".into(),
        )),
    }
}
