//! A code session after a restart (`computer.md` §7): no turn survived
//! the last process, so a `running` session is `idle` (`interrupted by a
//! restart`), and a `preparing` one lost its preparation: it begins again
//! from an empty workspace (its half-filled sandbox destroyed), at most
//! [`MAX_PREPARE_RESTARTS`] times, counted by compare-and-swap on the
//! session; then it is `failed`.

use std::sync::Arc;

use super::service::CodeSessions;
use super::sessions::{CodeSession, SessionStatus};

/// Preparations of one session a restart begins again, at most.
pub const MAX_PREPARE_RESTARTS: u32 = 3;

impl CodeSessions {
    /// The start-up pass over the sessions a restart interrupted.
    pub async fn after_restart(self: &Arc<Self>) {
        let running = self
            .store
            .run(|s| s.code_sessions_in(SessionStatus::Running))
            .await;
        for session in running.unwrap_or_default() {
            let _ = self
                .save(session.org_id, session.id, |s| {
                    if s.status != SessionStatus::Running {
                        return Err("moved on".into());
                    }
                    s.set(SessionStatus::Idle, Some("interrupted by a restart".into()));
                    Ok(())
                })
                .await;
        }
        let preparing = self
            .store
            .run(|s| s.code_sessions_in(SessionStatus::Preparing))
            .await;
        for session in preparing.unwrap_or_default() {
            self.prepare_again(session).await;
        }
    }

    /// Counts the interrupted preparation and begins it again, or fails
    /// the session past the limit.
    async fn prepare_again(self: &Arc<Self>, session: CodeSession) {
        let counted = self
            .save(session.org_id, session.id, |s| {
                if s.status != SessionStatus::Preparing {
                    return Err("moved on".into());
                }
                s.prepare_restarts += 1;
                if s.prepare_restarts > MAX_PREPARE_RESTARTS {
                    s.set(
                        SessionStatus::Failed,
                        Some(format!(
                            "preparing was interrupted by a restart {MAX_PREPARE_RESTARTS} times"
                        )),
                    );
                } else {
                    s.updated_at = chrono::Utc::now();
                }
                Ok(())
            })
            .await;
        let Ok(session) = counted else {
            return;
        };
        if session.status != SessionStatus::Preparing {
            return;
        }
        let (org, code_agent_id, agent_id) =
            (session.org_id, session.code_agent_id, session.agent_id);
        let loaded = self
            .store
            .run(move |s| Ok((s.code_agent(org, code_agent_id)?, s.agent(org, agent_id)?)))
            .await;
        let Ok((Some(code_agent), Some(agent))) = loaded else {
            let _ = self
                .save(org, session.id, |s| {
                    s.set(
                        SessionStatus::Failed,
                        Some("its code agent or agent is gone".into()),
                    );
                    Ok(())
                })
                .await;
            return;
        };
        // An empty workspace: whatever the interrupted one left goes.
        self.computer.destroy_thread(org, session.thread_id).await;
        tracing::info!(session = %session.id, attempt = session.prepare_restarts,
            "preparing a code session again after a restart");
        if let Err(error) = self.start_preparing(session, code_agent, agent).await {
            tracing::warn!(%error, "a code session's preparation could not begin again");
        }
    }
}
