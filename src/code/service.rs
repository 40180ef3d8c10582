//! Code sessions at work (`computer.md` §6): creating one (`create`),
//! sending it messages as turns on its thread (status `running` until the
//! turn's `done`, then `idle` with the diff stored), cancelling, and
//! archiving (turns stopped, the diff stored, the sandbox destroyed).
//! The session's changes are compare-and-swap writes through [`save`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use confer_actors::{Admission, CodeSessionId, IfBusy, OrgId, Runtime, ThreadEvent, TurnRequest};

use super::files::CodeArchives;
use super::sessions::{CodeSession, SessionStatus};
use crate::computer::service::ComputerService;
use crate::outbound::git::GitFetcher;
use crate::store::Store;
use crate::store::update::Updated;

/// The code sessions of this node.
pub struct CodeSessions {
    pub(super) store: Store,
    pub(super) runtime: Runtime,
    pub(super) computer: Arc<ComputerService>,
    pub(super) git: GitFetcher,
    pub(super) archives: CodeArchives,
    /// The most bytes a repository's fetch brings over.
    pub(super) repo_max_bytes: u64,
}

/// Why a session call failed.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The session's status forbids it (409).
    #[error("{0}")]
    Conflict(String),
    /// The store or the runtime failed.
    #[error("{0}")]
    Internal(String),
    /// The thread's actor refused the send (busy under `ifBusy: reject`,
    /// a reused `Idempotency-Key`, a full queue…).
    #[error("{0}")]
    Refused(confer_actors::Refusal),
}

/// A message's admission: the turn, or `None` while the session prepares
/// (the message waits for the preparation's end).
pub struct Sent {
    pub turn: Option<u64>,
    pub status: SessionStatus,
}

impl CodeSessions {
    pub fn new(
        store: Store,
        runtime: Runtime,
        computer: Arc<ComputerService>,
        git: GitFetcher,
        archives: CodeArchives,
        repo_max_bytes: u64,
    ) -> Arc<Self> {
        Arc::new(Self {
            store,
            runtime,
            computer,
            git,
            archives,
            repo_max_bytes,
        })
    }

    /// Applies `change` to the stored session; the session as stored, or
    /// `None` when it is gone or `change` refused.
    pub async fn save(
        &self,
        org: OrgId,
        id: CodeSessionId,
        change: impl Fn(&mut CodeSession) -> Result<(), String> + Send + 'static,
    ) -> Result<CodeSession, SessionError> {
        let saved = self
            .store
            .write(move |s| {
                s.update_code_session(org, id, |mut session| {
                    change(&mut session).map(|()| session)
                })
            })
            .await
            .map_err(|e| SessionError::Internal(e.to_string()))?;
        match saved {
            Updated::Stored(session) => Ok(session),
            Updated::Gone => Err(SessionError::Conflict("the session is gone".into())),
            Updated::Refused(why) => Err(SessionError::Conflict(why)),
        }
    }

    /// Sends `content` as the session's next turn (queued behind a running
    /// one under `if_busy: queue`); while preparing it waits for the end.
    pub async fn send(
        self: &Arc<Self>,
        session: &CodeSession,
        content: String,
        (if_busy, idempotency): (IfBusy, Option<confer_actors::IdempotencyKey>),
    ) -> Result<Sent, SessionError> {
        session.accepts_messages().map_err(SessionError::Conflict)?;
        if session.status == SessionStatus::Preparing {
            let queued = self
                .save(session.org_id, session.id, move |s| {
                    if s.status != SessionStatus::Preparing {
                        return Err("the session finished preparing: send again".into());
                    }
                    let first = s.first_message.get_or_insert_with(String::new);
                    if !first.is_empty() {
                        first.push_str("\n\n");
                    }
                    first.push_str(&content);
                    Ok(())
                })
                .await?;
            return Ok(Sent {
                turn: None,
                status: queued.status,
            });
        }
        self.turn(session, content, (if_busy, idempotency)).await
    }

    /// Posts a turn on the session's thread and follows it to its end.
    pub(super) async fn turn(
        self: &Arc<Self>,
        session: &CodeSession,
        content: String,
        (if_busy, idempotency): (IfBusy, Option<confer_actors::IdempotencyKey>),
    ) -> Result<Sent, SessionError> {
        let (org, agent_id, code_agent_id) =
            (session.org_id, session.agent_id, session.code_agent_id);
        let (agent, code_agent) = self
            .store
            .run(move |s| {
                Ok::<_, confer_actors::StoreError>((
                    crate::store::SledStore::agent(s, org, agent_id)?,
                    s.code_agent(org, code_agent_id)?,
                ))
            })
            .await
            .map_err(|e| SessionError::Internal(e.to_string()))?;
        let (Some(agent), Some(code_agent)) = (agent.filter(|a| !a.is_deleted()), code_agent)
        else {
            return Err(SessionError::Conflict(
                "the session's agent or code agent was deleted".into(),
            ));
        };
        let mut metadata = confer_actors::Metadata::default();
        metadata.insert("code_session_id".into(), session.id.to_string());
        let request = TurnRequest {
            content,
            sender_name: None,
            sender_id: None,
            model_override: None,
            system_prompt_overlay: Some(super::prompt::overlay(&code_agent, session)),
            metadata,
            tools: Vec::new(),
            tool_profile: None,
            tool_results: Vec::new(),
            user_id: session.created_by.clone(),
            end_user: false,
            accepted: Some(Instant::now()),
            idempotency,
            options: Arc::default(),
            if_busy: Some(if_busy.as_str()),
            otel_trace_id: None,
            public: None,
            continuation: false,
            stream_tool_output: true,
            host: None,
            delegation: None,
            run: None,
            max_tool_steps: Some(code_agent.max_steps),
            code_session: Some(session.id.to_string().into()),
        };
        let admission = self
            .runtime
            .post(org, session.thread_id, request, if_busy, Some(agent))
            .await
            .map_err(|e| SessionError::Internal(e.to_string()))?;
        let (turn, mut reader) = match admission {
            Admission::Accepted { turn, reader } => (turn, reader),
            // A repeat of a keyed message: its turn, as first answered.
            Admission::Duplicate { turn, .. } => {
                return Ok(Sent {
                    turn: Some(turn),
                    status: session.status,
                });
            }
            Admission::Refused(refusal) => return Err(SessionError::Refused(refusal)),
        };
        let running = self
            .save(org, session.id, |s| match s.status {
                SessionStatus::Failed | SessionStatus::Archived => {
                    Err(format!("the session is {}", s.status.as_str()))
                }
                _ => {
                    s.set(SessionStatus::Running, None);
                    Ok(())
                }
            })
            .await?;
        let sessions = Arc::clone(self);
        let (id, thread) = (session.id, session.thread_id);
        let limit = Duration::from_secs(u64::from(code_agent.turn_timeout_mins) * 60);
        tokio::spawn(async move {
            // The limit counts from the turn's start (its `meta`), not from
            // the send: a queued turn has not begun.
            let mut deadline = None;
            loop {
                let next = match deadline {
                    Some(at) => match tokio::time::timeout_at(at, reader.next()).await {
                        Ok(next) => next,
                        Err(_) => {
                            let _ = sessions.runtime.time_out(thread).await;
                            deadline = Some(tokio::time::Instant::now() + limit);
                            continue;
                        }
                    },
                    None => reader.next().await,
                };
                let Some(frame) = next else { break };
                match &frame.event {
                    ThreadEvent::Done(_) => break,
                    ThreadEvent::Meta(_) => {
                        deadline = Some(tokio::time::Instant::now() + limit);
                    }
                    _ => {}
                }
            }
            sessions.turn_ended(org, id, thread).await;
        });
        Ok(Sent {
            turn: Some(turn),
            status: running.status,
        })
    }

    /// A turn ended: `idle` unless another runs or the session moved on,
    /// and the diff stored.
    async fn turn_ended(&self, org: OrgId, id: CodeSessionId, thread: confer_actors::ThreadId) {
        // A queued turn that follows keeps the session running.
        if let Ok(log) = self.runtime.frames(org, thread).await
            && log.turns_now().running.is_some()
        {
            return;
        }
        let Ok(session) = self
            .save(org, id, |s| match s.status {
                SessionStatus::Running => {
                    s.set(SessionStatus::Idle, None);
                    Ok(())
                }
                _ => Err("not running".into()),
            })
            .await
        else {
            return;
        };
        self.store_diff(&session).await;
    }
}
