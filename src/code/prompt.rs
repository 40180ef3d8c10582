//! What a code session's turns add to its agent's (`computer.md` §6 rule
//! 2): an overlay after the cached preamble naming the repository, branch,
//! base commit, the setup's outcome and the allowed commands; and the
//! sandbox its computer tools use, which is the code agent's whatever the
//! agent's own computer configuration says.

use confer_actors::{OrgId, StoreError, ThreadId};

use super::agents::{CodeAgent, RepositoryKind};
use super::commands::AllowedCommands;
use super::sessions::CodeSession;
use crate::computer::config::ComputerConfig;
use crate::store::SledStore;

/// The turn's overlay.
pub fn overlay(agent: &CodeAgent, session: &CodeSession) -> String {
    let source = match agent.repository.kind {
        RepositoryKind::Git => agent.repository.url.clone().unwrap_or_default(),
        RepositoryKind::Archive => agent
            .repository
            .archive
            .as_ref()
            .map(|a| format!("the uploaded archive {}", a.filename))
            .unwrap_or_default(),
    };
    let mut text = format!(
        "You are working on the repository {source}, checked out in your sandbox's workspace \
         (use computer_run and computer_edit there).\nBranch: {}.\nBase commit: {}.",
        session.branch.as_deref().unwrap_or("the default branch"),
        session.base_commit.as_deref().unwrap_or("unknown"),
    );
    match (&agent.setup_command, &session.status_detail) {
        (Some(command), Some(detail)) => {
            text.push_str(&format!("\nSetup command `{command}`: {detail}."));
        }
        (Some(command), None) => text.push_str(&format!("\nSetup command `{command}` succeeded.")),
        (None, _) => {}
    }
    if let Some(patterns) = &agent.allowed_commands {
        text.push_str(&format!(
            "\nOnly these commands may run (a trailing * takes any further words; no shell \
             operators): {}.",
            patterns.join("; ")
        ));
    }
    text
}

/// The computer of a code session's thread: its code agent's settings
/// (always enabled) and allowed commands; `None` for any other thread.
pub fn thread_computer(
    store: &SledStore,
    org: OrgId,
    thread: ThreadId,
) -> Result<Option<(ComputerConfig, Option<AllowedCommands>)>, StoreError> {
    let Some(session) = store.code_session_of_thread(thread)? else {
        return Ok(None);
    };
    if session.org_id != org {
        return Ok(None);
    }
    let Some(agent) = store.code_agent(org, session.code_agent_id)? else {
        return Ok(None);
    };
    let mut config = agent.computer;
    config.enabled = true;
    // Checked when they were set: a stored list parses.
    let allowed = agent
        .allowed_commands
        .as_deref()
        .and_then(|patterns| AllowedCommands::parse(patterns).ok());
    Ok(Some((config, allowed)))
}
