//! Who may use a thread: the one place resource-level access is decided.
//!
//! Admins and members (API keys, admin JWTs) may use every thread of their
//! org. An end user (a JWT without `role: "admin"`) may use the threads it
//! created and the multiplayer threads it participates in, and the threads
//! of its projects as its role there allows ([`ThreadRight`]); a public chat's
//! visitor, its publication's threads it created or joined. A thread of
//! another org is never found (404), so its existence is not revealed; a thread
//! of the caller's org that the caller may not use is 403.

mod projects;

pub use projects::{project, role_name};

use confer_actors::{PlanId, StoreError, Thread, ThreadId, ThreadKind};

use crate::auth::visitor::Visitor;
use crate::auth::{Caller, Principal};
use crate::error::ApiError;
use crate::plans::Plan;
use crate::projects::ProjectRole;
use crate::state::AppState;
use crate::store::SledStore;

/// What a caller may do on a thread, weakest first (`agent-extras.md` §5:
/// a project's viewer reads, an editor changes, an owner also deletes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ThreadRight {
    /// History, stream, context, plans, logs, usage.
    Read,
    /// Also sends, stops, edits, plans and participants.
    Change,
    /// Also deletes.
    Delete,
}

impl ThreadRight {
    /// The right a project role grants on the project's threads.
    pub fn of_project_role(role: ProjectRole) -> Self {
        match role {
            ProjectRole::Viewer => Self::Read,
            ProjectRole::Editor => Self::Change,
            ProjectRole::Owner => Self::Delete,
        }
    }

    fn refusal(self) -> ApiError {
        let role = match self {
            Self::Read => return ApiError::Forbidden("no access to this thread".into()),
            Self::Change => "editor",
            Self::Delete => "owner",
        };
        ApiError::Forbidden(format!(
            "requires the {role} role in the thread's project (or being its creator)"
        ))
    }
}

/// What `caller` may do on `thread` (a thread of the caller's org), if
/// anything. Looks up participation and project membership only when they
/// matter.
pub fn thread_right(
    store: &SledStore,
    caller: &Caller,
    thread: &Thread,
) -> Result<Option<ThreadRight>, StoreError> {
    let Principal::User(user) = &caller.principal else {
        return Ok(Some(ThreadRight::Delete)); // API keys are admins or members
    };
    if user.admin {
        return Ok(Some(ThreadRight::Delete));
    }
    match (&thread.origin, &thread.delegation) {
        // A run's thread is read by admins and members only (`runners.md`);
        // a code session's through its session's routes (`computer.md` §6).
        (Some(confer_actors::ThreadOrigin::Run | confer_actors::ThreadOrigin::Code), _) => {
            return Ok(None);
        }
        // A delegate's thread, by whoever may read its root's
        // (`agent-extras.md` §3).
        (Some(confer_actors::ThreadOrigin::Delegate), Some(place)) => {
            return match store.thread(thread.org_id, place.root_thread_id)? {
                Some(root) if root.origin.is_none() => thread_right(store, caller, &root),
                _ => Ok(None),
            };
        }
        (Some(_), None) => return Ok(None),
        (None, _) => {}
    }
    if thread.created_by == user.sub {
        return Ok(Some(ThreadRight::Delete));
    }
    if thread.kind == ThreadKind::Multiplayer && store.participant(thread.id, &user.sub)?.is_some()
    {
        return Ok(Some(ThreadRight::Delete));
    }
    match thread.project_id {
        Some(project) => Ok(store
            .project_role(project, &user.sub)?
            .map(ThreadRight::of_project_role)),
        None => Ok(None),
    }
}

/// Whether `caller` may read `thread` (a thread of the caller's org).
pub fn may_use_thread(
    store: &SledStore,
    caller: &Caller,
    thread: &Thread,
) -> Result<bool, StoreError> {
    Ok(thread_right(store, caller, thread)?.is_some())
}

/// Loads a thread of the caller's org that the caller may read.
pub async fn thread(state: &AppState, caller: &Caller, id: ThreadId) -> Result<Thread, ApiError> {
    thread_for(state, caller, id, ThreadRight::Read).await
}

/// Loads a thread of the caller's org on which the caller has `need`.
pub async fn thread_for(
    state: &AppState,
    caller: &Caller,
    id: ThreadId,
    need: ThreadRight,
) -> Result<Thread, ApiError> {
    thread_and(state, caller, id, need, |_, _| Ok(()))
        .await
        .map(|(thread, ())| thread)
}

/// [`thread_for`], and `also` read in the same store call once access is
/// granted (a send reads the thread's agent with it: one hand-off to the
/// blocking pool instead of two).
pub async fn thread_and<T, F>(
    state: &AppState,
    caller: &Caller,
    id: ThreadId,
    need: ThreadRight,
    also: F,
) -> Result<(Thread, T), ApiError>
where
    T: Send + 'static,
    F: FnOnce(&SledStore, &Thread) -> Result<T, StoreError> + Send + 'static,
{
    let org = caller.org_id;
    let who = caller.clone();
    let found = state
        .store
        .run(move |store| {
            let Some(thread) = store.thread(org, id)? else {
                return Ok(None);
            };
            if thread_right(store, &who, &thread)?.is_none_or(|right| right < need) {
                return Ok(Some((thread, None)));
            }
            let extra = also(store, &thread)?;
            Ok(Some((thread, Some(extra))))
        })
        .await?;
    match found {
        None => Err(ApiError::not_found("thread")),
        Some((thread, Some(extra))) => Ok((thread, extra)),
        Some((_, None)) => Err(need.refusal()),
    }
}

/// [`thread_for`] for a change (a send, an edit, a delete): a run's
/// thread is driven by its run alone (409).
pub async fn changeable_thread(
    state: &AppState,
    caller: &Caller,
    id: ThreadId,
    need: ThreadRight,
) -> Result<Thread, ApiError> {
    changeable_thread_and(state, caller, id, need, |_, _| Ok(()))
        .await
        .map(|(thread, ())| thread)
}

/// [`thread_and`] for a change: see [`changeable_thread`].
pub async fn changeable_thread_and<T, F>(
    state: &AppState,
    caller: &Caller,
    id: ThreadId,
    need: ThreadRight,
    also: F,
) -> Result<(Thread, T), ApiError>
where
    T: Send + 'static,
    F: FnOnce(&SledStore, &Thread) -> Result<T, StoreError> + Send + 'static,
{
    let (thread, extra) = thread_and(state, caller, id, need, also).await?;
    driven_by_itself(&thread)?;
    Ok((thread, extra))
}

fn driven_by_itself(thread: &Thread) -> Result<(), ApiError> {
    match thread.origin {
        Some(confer_actors::ThreadOrigin::Run) => Err(ApiError::Conflict(
            "the thread is a run's: cancel or resume the run instead".into(),
        )),
        Some(confer_actors::ThreadOrigin::Delegate) => Err(ApiError::Conflict(
            "the thread is a delegate's: its parent's call drives it (a stop is allowed)".into(),
        )),
        Some(confer_actors::ThreadOrigin::Code) => Err(ApiError::Conflict(
            "the thread is a code session's: use /api/code-sessions/{id}".into(),
        )),
        None => Ok(()),
    }
}

/// [`thread`] for a stop: a run's thread is stopped by cancelling its run
/// (409); a delegate's may be stopped, its parent's call then answering
/// `delegate stopped` (`agent-extras.md` §3).
pub async fn stoppable_thread(
    state: &AppState,
    caller: &Caller,
    id: ThreadId,
) -> Result<Thread, ApiError> {
    let thread = thread_for(state, caller, id, ThreadRight::Change).await?;
    if thread.origin != Some(confer_actors::ThreadOrigin::Delegate) {
        driven_by_itself(&thread)?;
    }
    Ok(thread)
}

/// Loads a plan of the caller's org on whose thread the caller has `need`:
/// a plan of another org, or of a deleted thread, is 404; a plan of a
/// thread the caller may not use is 403, as for the thread itself
/// (`plans.md`).
pub async fn plan(
    state: &AppState,
    caller: &Caller,
    id: PlanId,
    need: ThreadRight,
) -> Result<Plan, ApiError> {
    let org = caller.org_id;
    let plan = state
        .store
        .run(move |store| store.plan(org, id))
        .await?
        .ok_or_else(|| ApiError::not_found("plan"))?;
    match thread_for(state, caller, plan.thread_id, need).await {
        Ok(_) => Ok(plan),
        Err(ApiError::NotFound(_)) => Err(ApiError::not_found("plan")),
        Err(other) => Err(other),
    }
}

/// Whether a visitor may use `thread`: a thread of its publication that it
/// created, or a multiplayer one it joined (`publishing.md` "Callers").
pub fn visitor_may_use(
    store: &SledStore,
    visitor: &Visitor,
    thread: &Thread,
) -> Result<bool, StoreError> {
    let publication = &visitor.publication;
    if thread.org_id != publication.org_id || thread.publication_id != Some(publication.id) {
        return Ok(false);
    }
    if thread.created_by == visitor.user_id {
        return Ok(true);
    }
    Ok(thread.kind == ThreadKind::Multiplayer
        && store.participant(thread.id, &visitor.user_id)?.is_some())
}

/// Loads a thread the visitor may use, and `also` in the same store call;
/// every other thread, of any org, is 404 (a visitor learns nothing of
/// threads that are not its own).
pub async fn visitor_thread_and<T, F>(
    state: &AppState,
    visitor: &Visitor,
    id: ThreadId,
    also: F,
) -> Result<(Thread, T), ApiError>
where
    T: Send + 'static,
    F: FnOnce(&SledStore, &Thread) -> Result<T, StoreError> + Send + 'static,
{
    let org = visitor.publication.org_id;
    let who = visitor.clone();
    state
        .store
        .run(move |store| {
            let Some(thread) = store.thread(org, id)? else {
                return Ok(None);
            };
            if !visitor_may_use(store, &who, &thread)? {
                return Ok(None);
            }
            let extra = also(store, &thread)?;
            Ok(Some((thread, extra)))
        })
        .await?
        .ok_or_else(|| ApiError::not_found("thread"))
}

/// [`visitor_thread_and`] with nothing more.
pub async fn visitor_thread(
    state: &AppState,
    visitor: &Visitor,
    id: ThreadId,
) -> Result<Thread, ApiError> {
    visitor_thread_and(state, visitor, id, |_, _| Ok(()))
        .await
        .map(|(thread, ())| thread)
}

/// Whether `caller` may read (`write`: add, reindex, delete) the knowledge
/// documents of `scope` (`knowledge.md` §6): a thread's as it may use the
/// thread (404/403 as for the thread); the org's and an agent's, admins
/// always, members to read, end users never (403). An agent the org does
/// not have is 404.
pub async fn knowledge_scope(
    state: &AppState,
    caller: &Caller,
    scope: crate::knowledge::Scope,
    write: bool,
) -> Result<(), ApiError> {
    use crate::auth::Role;
    use crate::knowledge::Scope;
    match scope {
        Scope::Thread(id) => {
            let need = if write {
                ThreadRight::Change
            } else {
                ThreadRight::Read
            };
            thread_for(state, caller, id, need).await.map(|_| ())
        }
        Scope::Org | Scope::Agent(_) => {
            if let Scope::Agent(agent) = scope {
                let org = caller.org_id;
                if state
                    .store
                    .run(move |s| s.agent(org, agent))
                    .await?
                    .is_none()
                {
                    return Err(ApiError::not_found("agent"));
                }
            }
            match caller.role() {
                Role::Admin => Ok(()),
                Role::Member if !write => Ok(()),
                Role::Member => Err(ApiError::Forbidden(
                    "requires an admin: members add and remove the documents of threads only".into(),
                )),
                Role::User => Err(ApiError::Forbidden(
                    "requires an admin or a member: end users reach the documents of their threads only"
                        .into(),
                )),
            }
        }
    }
}

/// Loads a knowledge document of the caller's org that it may read
/// (`write`: change); another org's is 404.
pub async fn knowledge_document(
    state: &AppState,
    caller: &Caller,
    id: confer_actors::DocumentId,
    write: bool,
) -> Result<crate::knowledge::Document, ApiError> {
    let org = caller.org_id;
    let document = state
        .store
        .run(move |s| s.document(org, id))
        .await?
        .ok_or_else(|| ApiError::not_found("document"))?;
    knowledge_scope(state, caller, document.scope, write).await?;
    Ok(document)
}

/// Whose memories a caller names (`knowledge.md` §6): an end user its own
/// (and, reading, the shared set), never another user's (403); an admin or
/// a member any user's, or every user's when it names none.
pub fn memory_user(caller: &Caller, named: Option<&str>) -> Result<Option<String>, ApiError> {
    use crate::auth::Role;
    match caller.role() {
        Role::User => {
            let own = caller.user_id();
            match named {
                Some(other) if other != own => Err(ApiError::Forbidden(
                    "requires an admin or a member: end users reach their own memories only".into(),
                )),
                _ => Ok(Some(own)),
            }
        }
        Role::Admin | Role::Member => Ok(named.map(str::to_owned)),
    }
}
