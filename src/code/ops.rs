//! A code session's diff, cancel, PATCH and archive (`computer.md` §6
//! rules 4–7): the diff is computed in the sandbox while its instance
//! runs, and stored at each turn's end and at archive; cancel stops the
//! thread's turn (its command's group killed with it) and keeps the
//! workspace; archive stops everything, stores the diff (30 s, else the
//! last stored) and destroys the sandbox. A status changed outside a turn
//! is told to the session's event streams as an id-less `session_status`;
//! `archived` ends them.

use std::time::Duration;

use super::prepare::status_event;
use super::service::{CodeSessions, SessionError};
use super::sessions::{CodeSession, SessionDiff, SessionStatus};
use super::workspace;
use crate::computer::instances::{InstanceState, StopReason};

/// The longest an archive waits for its diff.
const ARCHIVE_DIFF_WAIT: Duration = Duration::from_secs(30);

/// A diff and where it came from.
pub struct DiffRead {
    pub diff: Option<SessionDiff>,
    /// `live` or `stored`.
    pub source: &'static str,
}

impl CodeSessions {
    /// The diff computed now, when the session's sandbox runs.
    async fn live_diff(&self, session: &CodeSession) -> Option<SessionDiff> {
        let base = session.base_commit.clone()?;
        let (org, thread, agent_id, code_agent_id) = (
            session.org_id,
            session.thread_id,
            session.agent_id,
            session.code_agent_id,
        );
        let (instance, agent, code_agent) = self
            .store
            .run(move |s| {
                Ok::<_, confer_actors::StoreError>((
                    s.thread_instance(org, thread)?,
                    s.agent(org, agent_id)?,
                    s.code_agent(org, code_agent_id)?,
                ))
            })
            .await
            .ok()?;
        if instance?.state != InstanceState::Running {
            return None;
        }
        let mut config = code_agent?.computer;
        config.enabled = true;
        let provider = agent.map(|a| a.runtime_provider).unwrap_or_default();
        let lease = self
            .computer
            .acquire(org, agent_id, thread, provider, &config)
            .await
            .ok()?;
        let diff = workspace::diff(&lease, &config, &base).await;
        self.computer.finish(lease, false).await;
        match diff {
            Ok(diff) => Some(diff),
            Err(error) => {
                tracing::warn!(session = %session.id, %error, "a code session's diff failed");
                None
            }
        }
    }

    /// Computes the diff and stores it (when it could be computed).
    pub(super) async fn store_diff(&self, session: &CodeSession) -> Option<SessionDiff> {
        let diff = self.live_diff(session).await?;
        let stored = diff.clone();
        let _ = self
            .save(session.org_id, session.id, move |s| {
                s.diff = Some(stored.clone());
                Ok(())
            })
            .await;
        Some(diff)
    }

    /// The session's diff: live while its sandbox runs, else stored.
    pub async fn diff(&self, session: &CodeSession) -> DiffRead {
        if matches!(session.status, SessionStatus::Running | SessionStatus::Idle)
            && let Some(diff) = self.live_diff(session).await
        {
            return DiffRead {
                diff: Some(diff),
                source: "live",
            };
        }
        DiffRead {
            diff: session.diff.clone(),
            source: "stored",
        }
    }

    /// Stops the session's running turn (and with `queued` its queued
    /// ones); the workspace stays. Whether a turn was running.
    pub async fn cancel(&self, session: &CodeSession, queued: bool) -> Result<bool, SessionError> {
        if session.status == SessionStatus::Archived {
            return Err(SessionError::Conflict("the session is archived".into()));
        }
        self.runtime
            .stop(session.thread_id, queued)
            .await
            .map_err(|e| SessionError::Internal(e.to_string()))
    }

    /// Archives the session (a repeat: no-op).
    pub async fn archive(&self, session: &CodeSession) -> Result<CodeSession, SessionError> {
        if session.status == SessionStatus::Archived {
            return Ok(session.clone());
        }
        let _ = self.runtime.stop(session.thread_id, true).await;
        let diff = tokio::time::timeout(ARCHIVE_DIFF_WAIT, self.live_diff(session))
            .await
            .ok()
            .flatten();
        let archived = self
            .save(session.org_id, session.id, move |s| {
                if let Some(diff) = &diff {
                    s.diff = Some(diff.clone());
                }
                s.set(SessionStatus::Archived, None);
                Ok(())
            })
            .await?;
        self.runtime
            .notice(archived.thread_id, status_event(&archived), true);
        self.computer
            .destroy_thread(session.org_id, session.thread_id)
            .await;
        Ok(archived)
    }

    /// PATCH: a new title, and `wanted` status (`completed` only from idle,
    /// which stops the sandbox; `idle` only from completed; `archived` is
    /// [`archive`](Self::archive)).
    pub async fn patch(
        &self,
        session: &CodeSession,
        title: Option<String>,
        wanted: Option<SessionStatus>,
    ) -> Result<CodeSession, SessionError> {
        if wanted == Some(SessionStatus::Archived) {
            return self.archive(session).await;
        }
        let saved = self
            .save(session.org_id, session.id, move |s| {
                if s.status == SessionStatus::Archived {
                    return Err("the session is archived".into());
                }
                if let Some(wanted) = wanted {
                    let status = s.patched_status(wanted)?;
                    s.set(status, None);
                }
                if let Some(title) = &title {
                    s.title = Some(title.clone());
                }
                Ok(())
            })
            .await?;
        if saved.status != session.status {
            self.runtime
                .notice(saved.thread_id, status_event(&saved), false);
        }
        if wanted == Some(SessionStatus::Completed) {
            // A completed session's sandbox stops; a message or `idle`
            // reopens it on its workspace.
            self.computer
                .stop_thread(saved.org_id, saved.thread_id, StopReason::Completed)
                .await;
        }
        Ok(saved)
    }
}
