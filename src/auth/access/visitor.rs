//! What a public chat's visitor may reach (`publishing.md` "Callers"): the
//! threads of its publication that it created, and the multiplayer ones it
//! joined. Every other thread, of any org, is 404: a visitor learns nothing
//! of threads that are not its own. Read through the threads' port, so it
//! holds on either store.

use confer_actors::{Participant, StoreError, Thread, ThreadId, ThreadKind};

use crate::auth::visitor::Visitor;
use crate::error::ApiError;
use crate::state::AppState;

/// `user`'s participation in `thread`, if it is one.
pub async fn participant(
    state: &AppState,
    thread: ThreadId,
    user: &str,
) -> Result<Option<Participant>, StoreError> {
    let all = state.store.threads().participants(thread).await?;
    Ok(all.into_iter().find(|p| p.user_id == user))
}

/// Whether a visitor may use `thread`.
pub async fn visitor_may_use(
    state: &AppState,
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
        && participant(state, thread.id, &visitor.user_id)
            .await?
            .is_some())
}

/// Loads a thread the visitor may use; any other is 404.
pub async fn visitor_thread(
    state: &AppState,
    visitor: &Visitor,
    id: ThreadId,
) -> Result<Thread, ApiError> {
    let org = visitor.publication.org_id;
    match state.store.threads().thread(org, id).await? {
        Some(thread) if visitor_may_use(state, visitor, &thread).await? => Ok(thread),
        _ => Err(ApiError::not_found("thread")),
    }
}
