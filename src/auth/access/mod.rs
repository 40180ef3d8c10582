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
mod visitor;

pub use projects::{project, role_name};
pub use visitor::{participant, visitor_may_use, visitor_thread};

use confer_actors::{Agent, PlanId, StoreError, Thread, ThreadId, ThreadKind};

use crate::auth::{Caller, Principal};
use crate::error::ApiError;
use crate::plans::Plan;
use crate::projects::ProjectRole;
use crate::state::AppState;
use crate::store::SledStore;
use crate::store::thread_access::ThreadAccess;

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

/// The user whose participation and project role decide `caller`'s
/// access: an end user's; `None` for admins and API keys, who may use
/// every thread of their org.
fn reader(caller: &Caller) -> Option<String> {
    match &caller.principal {
        Principal::User(user) if !user.admin => Some(user.sub.clone()),
        _ => None,
    }
}

/// What `caller` may do on a thread of its org, from the thread's facts
/// as read for [`reader`]`(caller)`.
pub fn thread_right(caller: &Caller, facts: &ThreadAccess) -> Option<ThreadRight> {
    let Principal::User(user) = &caller.principal else {
        return Some(ThreadRight::Delete); // API keys are admins or members
    };
    if user.admin {
        return Some(ThreadRight::Delete);
    }
    let thread = &facts.thread;
    match (&thread.origin, &thread.delegation) {
        // A run's thread is read by admins and members only (`runners.md`);
        // a code session's through its session's routes (`computer.md` §6).
        (Some(confer_actors::ThreadOrigin::Run | confer_actors::ThreadOrigin::Code), _) => {
            return None;
        }
        // A delegate's thread, by whoever may read its root's
        // (`agent-extras.md` §3).
        (Some(confer_actors::ThreadOrigin::Delegate), Some(_)) => {
            return match &facts.root {
                Some(root) if root.thread.origin.is_none() => thread_right(caller, root),
                _ => None,
            };
        }
        (Some(_), None) => return None,
        (None, _) => {}
    }
    if thread.created_by == user.sub {
        return Some(ThreadRight::Delete);
    }
    if thread.kind == ThreadKind::Multiplayer && facts.participant {
        return Some(ThreadRight::Delete);
    }
    facts.project_role.map(ThreadRight::of_project_role)
}

/// Whether `caller` may read `thread` (a thread of the caller's org), for
/// the listings that filter records inside one sled call.
pub fn may_use_thread(
    store: &SledStore,
    caller: &Caller,
    thread: &Thread,
) -> Result<bool, StoreError> {
    let Some(user) = reader(caller) else {
        return Ok(true);
    };
    let facts = store.access_facts(thread.clone(), Some(&user), false)?;
    Ok(thread_right(caller, &facts).is_some())
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
    Ok(facts_for(state, caller, id, need, false).await?.thread)
}

/// The facts of a thread of the caller's org on which the caller has
/// `need` (its agent too, `with_agent`): one trip to the store.
async fn facts_for(
    state: &AppState,
    caller: &Caller,
    id: ThreadId,
    need: ThreadRight,
    with_agent: bool,
) -> Result<ThreadAccess, ApiError> {
    let facts = state
        .store
        .threads()
        .thread_access(caller.org_id, id, reader(caller), with_agent)
        .await?
        .ok_or_else(|| ApiError::not_found("thread"))?;
    match thread_right(caller, &facts) {
        Some(right) if right >= need => Ok(facts),
        _ => Err(need.refusal()),
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
    let thread = thread_for(state, caller, id, need).await?;
    driven_by_itself(&thread)?;
    Ok(thread)
}

/// [`changeable_thread`] with the thread's agent, read in the same trip
/// (a send's rules need it); `None` when the agent record is gone.
pub async fn changeable_thread_with_agent(
    state: &AppState,
    caller: &Caller,
    id: ThreadId,
    need: ThreadRight,
) -> Result<(Thread, Option<Agent>), ApiError> {
    let facts = facts_for(state, caller, id, need, true).await?;
    driven_by_itself(&facts.thread)?;
    Ok((facts.thread, facts.agent))
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
        .plans()
        .plan(org, id)
        .await?
        .ok_or_else(|| ApiError::not_found("plan"))?;
    match thread_for(state, caller, plan.thread_id, need).await {
        Ok(_) => Ok(plan),
        Err(ApiError::NotFound(_)) => Err(ApiError::not_found("plan")),
        Err(other) => Err(other),
    }
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
                if state.store.agents().agent(org, agent).await?.is_none() {
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
        .documents()
        .document(org, id)
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
