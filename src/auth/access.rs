//! Who may use a thread: the one place resource-level access is decided.
//!
//! Admins and members (API keys, admin JWTs) may use every thread of their
//! org. An end user (a JWT without `role: "admin"`) may use the threads it
//! created and the multiplayer threads it participates in. A thread of
//! another org is never found (404), so its existence is not revealed; a thread
//! of the caller's org that the caller may not use is 403.

use confer_actors::{PlanId, StoreError, Thread, ThreadId, ThreadKind, ThreadStore};

use crate::auth::{Caller, Principal};
use crate::error::ApiError;
use crate::plans::Plan;
use crate::state::AppState;
use crate::store::SledStore;

/// Whether `caller` may use `thread` (a thread of the caller's org). Looks up
/// participation only when it matters.
pub fn may_use_thread(
    store: &SledStore,
    caller: &Caller,
    thread: &Thread,
) -> Result<bool, StoreError> {
    let Principal::User(user) = &caller.principal else {
        return Ok(true); // API keys are admins or members
    };
    if user.admin || thread.created_by == user.sub {
        return Ok(true);
    }
    Ok(
        thread.kind == ThreadKind::Multiplayer
            && store.participant(thread.id, &user.sub)?.is_some(),
    )
}

/// Loads a thread of the caller's org that the caller may use.
pub async fn thread(state: &AppState, caller: &Caller, id: ThreadId) -> Result<Thread, ApiError> {
    let org = caller.org_id;
    let who = caller.clone();
    let (thread, allowed) = state
        .store
        .run(move |store| {
            let Some(thread) = store.thread(org, id)? else {
                return Ok((None, false));
            };
            let allowed = may_use_thread(store, &who, &thread)?;
            Ok((Some(thread), allowed))
        })
        .await?;
    let thread = thread.ok_or_else(|| ApiError::not_found("thread"))?;
    if allowed {
        Ok(thread)
    } else {
        Err(ApiError::Forbidden("no access to this thread".into()))
    }
}

/// Loads a plan of the caller's org whose thread the caller may use: a plan
/// of another org, or of a deleted thread, is 404; a plan of a thread the
/// caller may not use is 403, as for the thread itself (`plans.md`).
pub async fn plan(state: &AppState, caller: &Caller, id: PlanId) -> Result<Plan, ApiError> {
    let org = caller.org_id;
    let plan = state
        .store
        .run(move |store| store.plan(org, id))
        .await?
        .ok_or_else(|| ApiError::not_found("plan"))?;
    match thread(state, caller, plan.thread_id).await {
        Ok(_) => Ok(plan),
        Err(ApiError::NotFound(_)) => Err(ApiError::not_found("plan")),
        Err(other) => Err(other),
    }
}
