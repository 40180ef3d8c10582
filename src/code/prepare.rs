//! Preparing a code session (`computer.md` §6 rule 1), as the first turn
//! of its thread (a [`HostWork`]): its sandbox started with the code
//! agent's settings, the repository fetched on the
//! host (git) or the kept archive unpacked and committed as `confer:
//! initial snapshot`, `base_commit` read, the setup command run (a
//! non-zero exit leaves the session `idle` saying so; a failed fetch or
//! start leaves it `failed`), then the messages sent meanwhile.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use confer_actors::{
    DoneEvent, Emitter, HostWork, IfBusy, MetaEvent, SessionStatusEvent, ThreadEvent,
};

use super::agents::{CodeAgent, RepositoryKind};
use super::archive::ArchiveKind;
use super::seed::{self, FETCH_TIMEOUT};
use super::service::CodeSessions;
use super::sessions::{CodeSession, SessionStatus};
use super::workspace;
use crate::computer::runtime::ExecSpec;
use crate::computer::service::Lease;
use crate::outbound::git::GitRequest;
use crate::tools::computer::run::{command_output, exec_streaming};
use confer_actors::tools::ToolOutput;

/// What the setup command's output keeps for its detail.
const SETUP_KEEP: usize = 4096;

/// The preparation as the session thread's first turn: `meta {turnKind:
/// "prepare"}`, `session_status` (`preparing`, then `idle` or `failed`),
/// `done`; no user message, no model call.
pub(super) struct PrepareTurn {
    pub sessions: Arc<CodeSessions>,
    pub session: CodeSession,
    pub agent: CodeAgent,
}

/// A `session_status` event of `session`.
pub fn status_event(session: &CodeSession) -> ThreadEvent {
    ThreadEvent::SessionStatus(Box::new(SessionStatusEvent {
        session_id: session.id.to_string(),
        status: session.status.as_str().to_owned(),
        detail: session.status_detail.clone(),
        base_commit: session.base_commit.clone(),
    }))
}

impl HostWork for PrepareTurn {
    fn run(
        &self,
        emitter: Emitter,
        thread: confer_actors::ThreadId,
        _turn: u64,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + 'static>> {
        let (sessions, session, agent) = (
            Arc::clone(&self.sessions),
            self.session.clone(),
            self.agent.clone(),
        );
        Box::pin(async move {
            emitter.emit(ThreadEvent::Meta(Box::new(MetaEvent {
                started_at: Utc::now(),
                thread_id: thread,
                user_message_id: None,
                model: String::new(),
                shadowed_tools: Vec::new(),
                user_message: None,
                turn_kind: Some("prepare"),
            })));
            emitter.emit(status_event(&session));
            let ended = sessions.prepare(session, agent, &emitter).await;
            let ok = ended
                .as_ref()
                .is_some_and(|s| s.status != SessionStatus::Failed);
            if let Some(ended) = &ended {
                emitter.emit(status_event(ended));
            }
            let mut done = DoneEvent::failed(String::new());
            done.ok = ok;
            emitter.emit(ThreadEvent::Done(Box::new(done)));
            if let Some(ended) = ended {
                ended_well(&sessions, ended).await;
            }
        })
    }
}

/// Runs the setup command as a streamed `computer_run` of the prepare
/// turn (call id `setup`): `tool_executing`, its output as `tool_output`,
/// `tool_result`. Its failure, for the session's detail.
async fn setup(
    lease: &Lease,
    config: &crate::computer::config::ComputerConfig,
    command: &str,
    timeout: u64,
    emitter: &Emitter,
) -> Option<String> {
    let call = ("computer_run".to_owned(), "setup".to_owned());
    emitter.emit(ThreadEvent::ToolExecuting {
        tool_name: call.0.clone(),
        tool_call_id: call.1.clone(),
    });
    let output = match lease.sandbox() {
        Some(sandbox) => {
            let mut spec = ExecSpec::in_workspace(
                command.to_owned(),
                &lease.instance.workspace_path,
                config,
                lease.instance.size_class.rlimits(),
                Duration::from_secs(timeout),
            );
            spec.keep = SETUP_KEEP;
            let reply = exec_streaming(sandbox, spec, Some((emitter, &call))).await;
            command_output(reply, timeout, SETUP_KEEP, lease.instance.runtime)
        }
        None => ToolOutput::error("computer unavailable: the sandbox stopped"),
    };
    emitter.emit(ThreadEvent::ToolResult {
        tool_name: call.0,
        tool_call_id: call.1,
        result: Box::new(output.result.clone()),
        is_error: output.is_error.then_some(true),
    });
    output.is_error.then(|| {
        let why = output.result["error"].as_str().unwrap_or("failed");
        let stderr = output.result["stderr"].as_str().unwrap_or_default();
        let last = stderr.lines().last().unwrap_or_default();
        format!("setup failed ({why}): {last}")
    })
}

/// After a preparation that ended `idle`: the messages sent meanwhile.
async fn ended_well(sessions: &Arc<CodeSessions>, session: CodeSession) {
    if session.status != SessionStatus::Idle {
        return;
    }
    let Some(message) = session.first_message.clone() else {
        return;
    };
    let (org, id) = (session.org_id, session.id);
    let _ = sessions
        .save(org, id, |s| {
            s.first_message = None;
            Ok(())
        })
        .await;
    if let Err(error) = sessions
        .turn(&session, message, (IfBusy::Queue, None))
        .await
    {
        tracing::warn!(session = %id, %error, "a code session's first message was not sent");
    }
}

impl CodeSessions {
    /// Prepares `session` of `agent`; the outcome as stored (`None` when
    /// the session moved on meanwhile: archived, say).
    async fn prepare(
        &self,
        session: CodeSession,
        agent: CodeAgent,
        emitter: &Emitter,
    ) -> Option<CodeSession> {
        let (org, id) = (session.org_id, session.id);
        let outcome = self.prepared(&session, &agent, emitter).await;
        self.save(org, id, move |s| {
            if s.status != SessionStatus::Preparing {
                return Err("no longer preparing".into());
            }
            match &outcome {
                Ok((base, detail, instance)) => {
                    s.base_commit = Some(base.clone());
                    s.instance_id = Some(*instance);
                    s.set(SessionStatus::Idle, detail.clone());
                }
                Err(reason) => s.set(SessionStatus::Failed, Some(reason.clone())),
            }
            Ok(())
        })
        .await
        .ok()
    }

    /// The base commit, the setup's failure (if it failed) and the
    /// instance; or why preparing failed.
    async fn prepared(
        &self,
        session: &CodeSession,
        agent: &CodeAgent,
        emitter: &Emitter,
    ) -> Result<(String, Option<String>, confer_actors::InstanceId), String> {
        let (org, agent_id) = (session.org_id, session.agent_id);
        let provider = self
            .store
            .run(move |s| s.agent(org, agent_id))
            .await
            .map_err(|e| e.to_string())?
            .map(|a| a.runtime_provider)
            .unwrap_or_default();
        let mut config = agent.computer.clone();
        config.enabled = true;
        let seed = self.seed_tar(session, agent).await?;
        let lease = self
            .computer
            .acquire(org, agent_id, session.thread_id, provider, &config)
            .await?;
        let result = self.fill(&lease, &config, agent, &seed.0, emitter).await;
        let instance = lease.instance.id;
        self.computer.finish(lease, true).await;
        let _ = std::fs::remove_file(&seed.0);
        let (base, detail) = result?;
        Ok((base, detail, instance))
    }

    /// Unpacks the seed into the workspace, commits an archive, runs the
    /// setup: the base commit and the setup's failure.
    async fn fill(
        &self,
        lease: &Lease,
        config: &crate::computer::config::ComputerConfig,
        agent: &CodeAgent,
        seed: &std::path::Path,
        emitter: &Emitter,
    ) -> Result<(String, Option<String>), String> {
        workspace::unpack(lease, config, seed)
            .await
            .map_err(|e| format!("the repository was not unpacked: {e}"))?;
        if agent.repository.kind == RepositoryKind::Archive {
            workspace::snapshot(lease, config)
                .await
                .map_err(|e| format!("the snapshot commit failed: {e}"))?;
        }
        let base = workspace::head(lease, config)
            .await
            .map_err(|e| format!("the repository has no HEAD: {e}"))?;
        let Some(command) = &agent.setup_command else {
            return Ok((base, None));
        };
        Ok((
            base,
            setup(lease, config, command, agent.setup_timeout_secs, emitter).await,
        ))
    }

    /// The repository as a plain tar on the host (removed by the caller).
    async fn seed_tar(
        &self,
        session: &CodeSession,
        agent: &CodeAgent,
    ) -> Result<(std::path::PathBuf,), String> {
        let out = self
            .archives
            .scratch()
            .join(format!("seed-{}.tar", session.id));
        match agent.repository.kind {
            RepositoryKind::Git => {
                let stored = agent.clone();
                let token = self
                    .store
                    .run(move |s| s.code_agent_token(&stored))
                    .await
                    .map_err(|e| format!("the repository's token: {e}"))?;
                let url = agent.repository.url.clone().unwrap_or_default();
                let request = GitRequest {
                    url: &url,
                    git_ref: session.branch.as_deref(),
                    token: token.as_deref(),
                    max_pack: self.repo_max_bytes,
                    timeout: FETCH_TIMEOUT,
                };
                seed::git_tar(&self.git, &request, agent.repository.depth, &out)
                    .await
                    .map_err(|e| format!("the repository was not fetched: {e}"))?;
            }
            RepositoryKind::Archive => {
                let archive = agent
                    .repository
                    .archive
                    .as_ref()
                    .ok_or("the code agent has no archive")?;
                let kind = match archive.stored_as.rsplit('.').next() {
                    Some("zip") => ArchiveKind::Zip,
                    Some("gz") => ArchiveKind::TarGz,
                    _ => ArchiveKind::Tar,
                };
                let path = self.archives.path(session.org_id, &archive.stored_as);
                let target = out.clone();
                tokio::task::spawn_blocking(move || seed::archive_tar(&path, kind, &target))
                    .await
                    .map_err(|e| format!("the archive was not unpacked ({e})"))??;
            }
        }
        Ok((out,))
    }
}
