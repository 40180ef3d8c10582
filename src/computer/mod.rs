//! Computer use (`computer.md`): a sandbox an agent's tools run commands
//! and edit files in. [`runtime`] is the `SandboxRuntime` port and
//! [`local`] its bubblewrap runtime on this host, whose in-sandbox helper
//! is [`agent`] (spoken to in [`protocol`], filtered by [`seccomp`]); [`config`] is an agent's
//! configuration, [`instances`] the stored instance, [`service`] their
//! lifecycle; [`editor`] and [`output`] are what the tools
//! (`crate::tools::computer`) do with a command's text.

pub mod agent;
pub mod config;
pub mod daytona;
pub mod e2b;
pub mod editor;
pub mod hosted;
pub mod instances;
pub mod local;
pub mod metrics;
pub mod output;
pub mod protocol;
pub mod runtime;
pub mod seccomp;
pub mod service;

use std::sync::Arc;

use anyhow::Context;

use crate::outbound::Outbound;
use crate::settings::Settings;
use crate::store::Store;
use service::{ComputerService, ComputerSettings, LocalMode};

/// The lifecycle from the settings, its restart done and its sweeps
/// running. Fails when the local runtime is `on` and its probe fails, or
/// when the sandbox uid is the stdio MCP children's (each could then
/// reach the other's files).
pub async fn start(
    settings: &Settings,
    store: &Store,
    outbound: &Outbound,
) -> anyhow::Result<Arc<ComputerService>> {
    let root = crate::tools::mcp::stdio::running_as_root();
    if root && settings.sandbox_uid == settings.mcp_stdio_uid {
        anyhow::bail!(
            "sandbox_uid and mcp_stdio_uid are both {}: they must differ",
            settings.sandbox_uid
        );
    }
    if !root && settings.sandbox_local != LocalMode::Off {
        tracing::warn!(
            "Confer does not run as root: local sandboxes run as its own user, so an escape \
             would reach the data directory"
        );
    }
    let local: Option<Arc<dyn runtime::SandboxRuntime>> = match settings.sandbox_local {
        LocalMode::Off => None,
        LocalMode::Auto | LocalMode::On => {
            Some(Arc::new(local::LocalRuntime::new(local::LocalSettings {
                bwrap: settings.bwrap_path.clone(),
                dir: settings.sandbox_dir(),
                run_as: root.then_some(settings.sandbox_uid),
                binary: std::env::current_exe().context("finding Confer's own binary")?,
                policy: Arc::new(outbound.policy().clone()),
            })))
        }
    };
    if settings.sandbox_local == LocalMode::On
        && let Some(local) = &local
        && let Err(reason) = local.probe().await
    {
        anyhow::bail!("the local sandbox does not start (CONFER_SANDBOX_LOCAL=on): {reason}");
    }
    let e2b = settings.e2b_api_key.clone().map(|api_key| {
        let runtime: Arc<dyn runtime::SandboxRuntime> = Arc::new(e2b::E2bRuntime::new(
            e2b::E2bSettings {
                api_url: settings.e2b_api_url.clone(),
                sandbox_url: settings.e2b_sandbox_url.clone(),
                api_key,
                templates: [
                    settings.e2b_template_small.clone(),
                    settings.e2b_template_medium.clone(),
                    settings.e2b_template_large.clone(),
                ],
                install: install_tag(store),
            },
            outbound.clone(),
        ));
        runtime
    });
    let daytona = settings.daytona_api_key.clone().map(|api_key| {
        let runtime: Arc<dyn runtime::SandboxRuntime> = Arc::new(daytona::DaytonaRuntime::new(
            daytona::DaytonaSettings {
                api_url: settings.daytona_api_url.clone(),
                api_key,
                install: install_tag(store),
            },
            outbound.clone(),
        ));
        runtime
    });
    let service = ComputerService::new(
        store.clone(),
        service::Runtimes {
            local,
            e2b,
            daytona,
        },
        ComputerSettings {
            fallback: settings.sandbox_fallback,
            e2b_key: settings.e2b_api_key.is_some(),
            daytona_key: settings.daytona_api_key.is_some(),
            max_running_per_org: settings.sandbox_max_running_per_org.max(1),
            max_instances_per_org: settings.sandbox_max_instances_per_org.max(1),
            max_running: settings.sandbox_max_running.max(1),
            retention: chrono::Duration::hours(
                i64::try_from(settings.sandbox_retention_hours).unwrap_or(i64::MAX / 3_600_000),
            ),
        },
    );
    service.after_restart().await;
    service.start_sweeps();
    Ok(service)
}

/// This installation's tag on its hosted sandboxes: derived from the
/// secret key, so the same on every start and node, telling nothing of it.
fn install_tag(store: &Store) -> String {
    hex::encode(&store.derive_key(b"confer-sandbox-install")[..8])
}
