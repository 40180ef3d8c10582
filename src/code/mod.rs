//! Code agents and code sessions (`computer.md` §5–6): an agent plus a
//! repository, and the tasks that work on it in a sandbox. The records'
//! rules live here; the store keeps them (`crate::store::code`), the
//! routes shape them (`crate::api::code_agents`), and the sandbox they
//! run in is `crate::computer`.

pub mod agents;
pub mod archive;
pub mod changes;
pub mod commands;
pub mod create;
pub mod files;
pub mod ops;
pub mod prepare;
pub mod prompt;
pub mod restart;
pub mod retention;
pub mod seed;
pub mod service;
pub mod sessions;
pub mod workspace;

use std::sync::Arc;

/// The kept archives and the code sessions of this node, sessions a
/// restart interrupted marked so.
pub async fn start(
    settings: &crate::settings::Settings,
    store: &crate::store::Store,
    runtime: &confer_actors::Runtime,
    computer: &Arc<crate::computer::service::ComputerService>,
    outbound: &crate::outbound::Outbound,
) -> anyhow::Result<(files::CodeArchives, Arc<service::CodeSessions>)> {
    use anyhow::Context as _;
    let archives =
        files::CodeArchives::open(&settings.data_dir).context("opening code-archives/")?;
    let git =
        crate::outbound::git::GitFetcher::new(&settings.git_path, &settings.data_dir, outbound);
    let sessions = service::CodeSessions::new(
        store.clone(),
        runtime.clone(),
        Arc::clone(computer),
        git,
        archives.clone(),
        settings.code_repo_max_bytes,
    );
    sessions.after_restart().await;
    Ok((archives, sessions))
}
