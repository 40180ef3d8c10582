//! Creating a code session (`computer.md` §6 rules 1 and 3): past the
//! org's instance cap 409; the session stored, then its hidden thread
//! (with the request's `Idempotency-Key`, whose repeat answers the first
//! session); then the preparation posted as the thread's first turn
//! (`crate::code::prepare`).

use std::sync::Arc;
use std::time::Instant;

use chrono::Utc;
use confer_actors::{Admission, CodeSessionId, HostTurn, IfBusy, Refusal, TurnRequest};

use super::agents::CodeAgent;
use super::service::{CodeSessions, SessionError};
use super::sessions::{CodeSession, SessionStatus};
use crate::store::threads::Created;

/// What a creation asked for.
pub struct NewSession {
    pub created_by: String,
    pub title: Option<String>,
    pub branch: Option<String>,
    pub message: Option<String>,
    /// The `Idempotency-Key`'s hash and the request's (hex).
    pub keyed: Option<([u8; 32], String)>,
}

/// What a creation did.
pub enum SessionCreated {
    New(CodeSession),
    /// The key was seen with this request: the session made then.
    Repeat(CodeSession),
}

impl CodeSessions {
    /// The session an earlier creation with this key made, if the key is
    /// still kept; `KeyReused` when it was made by another request. The
    /// handler asks first, so a retry answers the first session whatever
    /// became of its code agent; [`Self::create`] asks again for a race.
    pub async fn repeated(
        &self,
        org: confer_actors::OrgId,
        keyed: &Option<([u8; 32], String)>,
    ) -> Result<Option<CodeSession>, SessionError> {
        let Some((key, request)) = keyed.clone() else {
            return Ok(None);
        };
        let seen = self
            .store
            .run(move |s| {
                let Some(seen) = s.keyed_creation(org, &key)? else {
                    return Ok(None);
                };
                let session = s.code_session_of_thread(seen.thread_id)?;
                Ok(Some((seen.request == request, session)))
            })
            .await
            .map_err(|e| SessionError::Internal(e.to_string()))?;
        match seen {
            None => Ok(None),
            Some((false, _)) => Err(SessionError::Refused(Refusal::KeyReused)),
            Some((true, Some(session))) => Ok(Some(session)),
            Some((true, None)) => Err(SessionError::Internal(
                "the keyed creation's session was not stored".into(),
            )),
        }
    }

    /// Stores a new session and its thread, and starts preparing it; a
    /// repeat of a keyed creation answers the first session, whatever
    /// the cap now says.
    pub async fn create(
        self: &Arc<Self>,
        (code_agent, agent): (CodeAgent, confer_actors::Agent),
        new: NewSession,
    ) -> Result<SessionCreated, SessionError> {
        let org = code_agent.org_id;
        if let Some(session) = self.repeated(org, &new.keyed).await? {
            return Ok(SessionCreated::Repeat(session));
        }
        if !self
            .computer
            .has_room_for_one(org)
            .await
            .map_err(SessionError::Internal)?
        {
            return Err(SessionError::Conflict(
                "the org's sandbox instances are at their cap \
                 (CONFER_SANDBOX_MAX_INSTANCES_PER_ORG), none of them stopped"
                    .into(),
            ));
        }
        let now = Utc::now();
        let session = CodeSession {
            id: CodeSessionId::new(),
            org_id: code_agent.org_id,
            code_agent_id: code_agent.id,
            agent_id: code_agent.agent_id,
            thread_id: confer_actors::ThreadId::new(),
            title: new.title,
            status: SessionStatus::Preparing,
            status_detail: None,
            branch: new.branch.or_else(|| code_agent.repository.branch.clone()),
            base_commit: None,
            instance_id: None,
            created_by: new.created_by,
            created_at: now,
            updated_at: now,
            archived_at: None,
            diff: None,
            first_message: new.message,
            prepare_restarts: 0,
        };
        let thread = session.thread(now);
        let stored = session.clone();
        let keyed = new.keyed;
        // The session first, then its thread with the key: whoever finds
        // the key finds its session stored. A creation that loses the race
        // for the key takes its own session back (it was never answered).
        let created = self
            .store
            .write(move |s| {
                s.create_code_session(&stored)?;
                match s.create_thread_keyed(&thread, None, keyed)? {
                    Created::New(_) => Ok(None),
                    other => {
                        s.remove_code_session(&stored)?;
                        Ok(Some(other))
                    }
                }
            })
            .await
            .map_err(|e| SessionError::Internal(e.to_string()))?;
        match created {
            None => {}
            Some(Created::Repeat(thread)) => {
                // Another creation with this key won the race.
                let first = self
                    .store
                    .run(move |s| s.code_session_of_thread(thread))
                    .await
                    .map_err(|e| SessionError::Internal(e.to_string()))?;
                return first.map(SessionCreated::Repeat).ok_or_else(|| {
                    SessionError::Internal("the keyed creation's session was not stored".into())
                });
            }
            Some(Created::KeyReused) => return Err(SessionError::Refused(Refusal::KeyReused)),
            Some(_) => {
                return Err(SessionError::Internal(
                    "the session's thread could not be made".into(),
                ));
            }
        }
        self.start_preparing(session, code_agent, agent)
            .await
            .map(SessionCreated::New)
    }

    /// Posts the preparation as the session's first turn; a session whose
    /// preparation was not admitted is `failed`.
    pub(super) async fn start_preparing(
        self: &Arc<Self>,
        session: CodeSession,
        code_agent: CodeAgent,
        agent: confer_actors::Agent,
    ) -> Result<CodeSession, SessionError> {
        let prepare = super::prepare::PrepareTurn {
            sessions: Arc::clone(self),
            session: session.clone(),
            agent: code_agent,
        };
        let request = TurnRequest {
            user_id: session.created_by.clone(),
            accepted: Some(Instant::now()),
            if_busy: Some(IfBusy::Queue.as_str()),
            // No content: the turn is the server's own.
            continuation: true,
            host: Some(Arc::new(HostTurn(Box::new(prepare)))),
            ..TurnRequest::default()
        };
        let admission = self
            .runtime
            .post(
                session.org_id,
                session.thread_id,
                request,
                IfBusy::Queue,
                Some(agent),
            )
            .await;
        if !matches!(admission, Ok(Admission::Accepted { .. })) {
            let detail = "the preparation was not admitted".to_owned();
            return self
                .save(session.org_id, session.id, move |s| {
                    s.set(SessionStatus::Failed, Some(detail.clone()));
                    Ok(())
                })
                .await;
        }
        Ok(session)
    }
}
