//! A code session (`computer.md` §6): a task owning one hidden thread of
//! its code agent's agent (`origin: "code"`), the sandbox it works in, and
//! its status: `preparing → idle ⇄ running`, `preparing → failed`,
//! `idle → completed` (reopened by a message or a PATCH), any →
//! `archived` (final). Every change is a compare-and-swap in the store;
//! the rules of which change is allowed from which status are here.

use chrono::{DateTime, Utc};
use confer_actors::{
    AgentId, CodeAgentId, CodeSessionId, InstanceId, OrgId, Thread, ThreadId, ThreadKind,
    ThreadOrigin,
};
use serde::{Deserialize, Serialize};

/// Where a session is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SessionStatus {
    Preparing,
    Idle,
    Running,
    Completed,
    Failed,
    Archived,
}

impl SessionStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Preparing => "preparing",
            Self::Idle => "idle",
            Self::Running => "running",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Archived => "archived",
        }
    }

    /// The status named `text`.
    pub fn parse(text: &str) -> Option<Self> {
        [
            Self::Preparing,
            Self::Idle,
            Self::Running,
            Self::Completed,
            Self::Failed,
            Self::Archived,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
    }
}

/// One file of a diff.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DiffFile {
    pub path: String,
    /// `added`, `modified`, `deleted` or `renamed`.
    pub status: String,
    pub additions: u64,
    pub deletions: u64,
}

/// A session's changes against its base commit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionDiff {
    pub diff: String,
    pub files: Vec<DiffFile>,
    pub truncated: bool,
    pub computed_at: DateTime<Utc>,
}

/// The stored session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeSession {
    pub id: CodeSessionId,
    pub org_id: OrgId,
    pub code_agent_id: CodeAgentId,
    pub agent_id: AgentId,
    pub thread_id: ThreadId,
    pub title: Option<String>,
    pub status: SessionStatus,
    pub status_detail: Option<String>,
    /// The branch worked on (`None`: the repository's default).
    pub branch: Option<String>,
    pub base_commit: Option<String>,
    pub instance_id: Option<InstanceId>,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub archived_at: Option<DateTime<Utc>>,
    /// The diff as last stored (at each stop and at archive).
    #[serde(default)]
    pub diff: Option<SessionDiff>,
    /// The first message, sent once preparing ends well.
    #[serde(default)]
    pub first_message: Option<String>,
    /// Preparations a restart interrupted (at most 3 are begun again).
    #[serde(default)]
    pub prepare_restarts: u32,
}

/// Why a change of status is refused: the detail of a 409.
pub type StatusRefusal = String;

impl CodeSession {
    /// The session's hidden thread (`origin: "code"`), made with it.
    pub fn thread(&self, now: DateTime<Utc>) -> Thread {
        Thread {
            id: self.thread_id,
            org_id: self.org_id,
            agent_id: self.agent_id,
            title: self.title.clone(),
            kind: ThreadKind::Single,
            active_profile: None,
            metadata: Default::default(),
            system_prompt_overlay: None,
            resource_bindings: Vec::new(),
            created_by: self.created_by.clone(),
            publication_id: None,
            invite_generation: 0,
            origin: Some(ThreadOrigin::Code),
            delegation: None,
            project_id: None,
            created_at: now,
            updated_at: now,
        }
    }

    /// Whether a message may be sent now (it queues while preparing or
    /// running; `completed` reopens).
    pub fn accepts_messages(&self) -> Result<(), StatusRefusal> {
        match self.status {
            SessionStatus::Failed | SessionStatus::Archived => Err(format!(
                "the session is {}: it takes no more messages",
                self.status.as_str()
            )),
            _ => Ok(()),
        }
    }

    /// The session after a PATCH's `status`: `completed` only from idle,
    /// `idle` only from completed (`archived` is the archive route's).
    pub fn patched_status(&self, wanted: SessionStatus) -> Result<SessionStatus, StatusRefusal> {
        match (self.status, wanted) {
            (SessionStatus::Idle, SessionStatus::Completed)
            | (SessionStatus::Completed, SessionStatus::Idle) => Ok(wanted),
            (current, wanted) if current == wanted => Ok(wanted),
            (current, wanted) => Err(format!(
                "status: the session is {}; {} is not reachable from it",
                current.as_str(),
                wanted.as_str()
            )),
        }
    }

    /// Moves to `status` with `detail`, touching `updated_at`.
    pub fn set(&mut self, status: SessionStatus, detail: Option<String>) {
        self.status = status;
        self.status_detail = detail;
        self.updated_at = Utc::now();
        if status == SessionStatus::Archived && self.archived_at.is_none() {
            self.archived_at = Some(self.updated_at);
        }
    }
}

/// A session of `org` with `status`, for unit tests.
#[cfg(test)]
pub(crate) fn test_session(org: OrgId, status: SessionStatus) -> CodeSession {
    let now = Utc::now();
    CodeSession {
        id: CodeSessionId::new(),
        org_id: org,
        code_agent_id: CodeAgentId::new(),
        agent_id: AgentId::new(),
        thread_id: ThreadId::new(),
        title: None,
        status,
        status_detail: None,
        branch: None,
        base_commit: None,
        instance_id: None,
        created_by: "apikey:x".into(),
        created_at: now,
        updated_at: now,
        archived_at: None,
        diff: None,
        first_message: None,
        prepare_restarts: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(status: SessionStatus) -> CodeSession {
        test_session(OrgId::new(), status)
    }

    #[test]
    fn only_the_contract_s_status_changes_are_allowed() {
        use SessionStatus::*;
        assert_eq!(session(Idle).patched_status(Completed), Ok(Completed));
        assert_eq!(session(Completed).patched_status(Idle), Ok(Idle));
        for (from, to) in [(Running, Completed), (Preparing, Idle), (Failed, Idle)] {
            let refused = session(from).patched_status(to).unwrap_err();
            assert!(refused.contains(from.as_str()), "{refused}");
        }
        assert!(session(Failed).accepts_messages().is_err());
        assert!(session(Archived).accepts_messages().is_err());
        assert!(session(Completed).accepts_messages().is_ok());
        assert!(session(Preparing).accepts_messages().is_ok());
        let mut archived = session(Idle);
        archived.set(Archived, None);
        assert!(archived.archived_at.is_some());
        assert_eq!(SessionStatus::parse("running"), Some(Running));
        assert_eq!(SessionStatus::parse("paused"), None);
    }
}
