//! What deciding a caller's access to a thread needs, read in one trip:
//! the thread, whether the user participates in it, the user's role in its
//! project, a delegate's root thread, and (for a send) its agent. The rule
//! itself is decided in one place, `crate::auth::access`; the stores only
//! gather its facts.

use confer_actors::{Agent, OrgId, StoreError, Thread, ThreadId};

use super::SledStore;
use crate::projects::ProjectRole;

/// The facts of one thread for one reader.
#[derive(Clone, Debug)]
pub struct ThreadAccess {
    pub thread: Thread,
    /// Whether the user named participates in the thread.
    pub participant: bool,
    /// The user's role in the thread's project, if any.
    pub project_role: Option<ProjectRole>,
    /// A delegate's root thread, with the same user's facts there
    /// (`agent-extras.md` §3: whoever may read the root reads the delegate).
    pub root: Option<Box<ThreadAccess>>,
    /// The thread's agent, when it was asked for.
    pub agent: Option<Agent>,
}

impl SledStore {
    /// The facts of `thread` for `user` (none looked up without one).
    pub fn access_facts(
        &self,
        thread: Thread,
        user: Option<&str>,
        with_agent: bool,
    ) -> Result<ThreadAccess, StoreError> {
        self.facts(thread, user, with_agent, true)
    }

    /// [`SledStore::access_facts`]; a root's own root is never followed
    /// (a root is no delegate, and a record saying otherwise grants
    /// nothing).
    fn facts(
        &self,
        thread: Thread,
        user: Option<&str>,
        with_agent: bool,
        follow_root: bool,
    ) -> Result<ThreadAccess, StoreError> {
        let (participant, project_role) = match user {
            Some(user) => (
                self.participant(thread.id, user)?.is_some(),
                match thread.project_id {
                    Some(project) => self.project_role(project, user)?,
                    None => None,
                },
            ),
            None => (false, None),
        };
        let root = match (&thread.origin, &thread.delegation) {
            (Some(confer_actors::ThreadOrigin::Delegate), Some(place)) if follow_root => self
                .thread(thread.org_id, place.root_thread_id)?
                .map(|root| self.facts(root, user, false, false).map(Box::new))
                .transpose()?,
            _ => None,
        };
        let agent = match with_agent {
            true => self.agent(thread.org_id, thread.agent_id)?,
            false => None,
        };
        Ok(ThreadAccess {
            thread,
            participant,
            project_role,
            root,
            agent,
        })
    }

    /// [`SledStore::access_facts`] of a thread of `org`, `None` when it has
    /// none of that id.
    pub fn thread_access(
        &self,
        org: OrgId,
        id: ThreadId,
        user: Option<&str>,
        with_agent: bool,
    ) -> Result<Option<ThreadAccess>, StoreError> {
        self.thread(org, id)?
            .map(|thread| self.access_facts(thread, user, with_agent))
            .transpose()
    }
}
