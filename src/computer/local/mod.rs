//! The `local` runtime (`computer.md` §1, §4): one `bwrap` per running
//! instance, running Confer's own binary as `confer sandbox-agent`
//! ([`super::agent`]) in fresh namespaces with every capability dropped, a
//! read-only system, a synthesized `/etc`, its own `/proc` and a sized
//! `/tmp`, the instance's workspace at `/workspace`, and no network but
//! loopback. The workspace, the binary and the `/etc` files are handed to
//! bwrap as open descriptors, so its command line (which the sandbox sees
//! as `/proc/1/cmdline`) names no host path. When Confer runs as root,
//! bwrap runs as the sandbox uid, which owns the workspace.

mod command;
mod sandbox;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncBufReadExt;
use tokio::process::Command;

pub use self::command::EGRESS_SOCKET;
use self::command::{Descriptors, arguments};
use self::sandbox::{LocalSandbox, read_envelope};

use super::config::{Network, NetworkMode, SizeClass};
use super::instances::InstanceId;
use super::protocol::{Envelope, Reply};
use super::runtime::{RunningSandbox, RuntimeFuture, RuntimeKind, SandboxRuntime, StartSpec};
use crate::outbound::OutboundPolicy;
use crate::outbound::egress::{EgressProxy, EgressRules};

/// How long a sandbox may take to say it is ready (`computer.md` §2).
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// The local runtime's settings.
#[derive(Clone, Debug)]
pub struct LocalSettings {
    /// bubblewrap.
    pub bwrap: PathBuf,
    /// Where instances' workspaces are (`{dir}/{instance}/workspace`).
    pub dir: PathBuf,
    /// The uid (and gid) bwrap runs as when Confer runs as root.
    pub run_as: Option<u32>,
    /// Confer's own binary, run inside as the helper.
    pub binary: PathBuf,
    /// What an allow-list's egress proxy checks besides the list.
    pub policy: Arc<OutboundPolicy>,
}

/// The bubblewrap runtime.
pub struct LocalRuntime {
    settings: LocalSettings,
    probed: tokio::sync::OnceCell<Result<(), String>>,
}

impl LocalRuntime {
    pub fn new(settings: LocalSettings) -> Self {
        Self {
            settings,
            probed: tokio::sync::OnceCell::new(),
        }
    }

    fn instance_dir(&self, instance: InstanceId) -> PathBuf {
        self.settings.dir.join(instance.to_string())
    }

    /// Makes `path` a directory of the sandbox's user, mode 0700.
    fn own_dir(&self, path: &Path) -> std::io::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(path)?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700))?;
        if let Some(uid) = self.settings.run_as {
            std::os::unix::fs::chown(path, Some(uid), Some(uid))?;
        }
        Ok(())
    }

    /// The workspace of `instance`, made (empty) when `fresh`.
    fn workspace(&self, instance: InstanceId, fresh: bool) -> std::io::Result<PathBuf> {
        let dir = self.instance_dir(instance);
        let workspace = dir.join("workspace");
        if fresh {
            match std::fs::remove_dir_all(&dir) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        } else if !workspace.is_dir() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "the workspace is gone",
            ));
        }
        self.own_dir(&dir)?;
        self.own_dir(&workspace)?;
        Ok(workspace)
    }

    /// An allow-list's egress proxy on a socket in the instance's
    /// directory (none without one).
    fn egress(&self, workspace: &Path, network: &Network) -> Result<Option<EgressProxy>, String> {
        if network.mode != NetworkMode::Allowlist {
            return Ok(None);
        }
        let socket = workspace.parent().unwrap_or(workspace).join("egress.sock");
        let rules = EgressRules {
            entries: network.allow.clone(),
            ..EgressRules::default()
        };
        EgressProxy::start_unix(
            Arc::clone(&self.settings.policy),
            rules,
            socket,
            self.settings.run_as,
        )
        .map(Some)
        .map_err(|e| format!("starting the egress proxy: {e}"))
    }

    async fn launch(
        &self,
        workspace: &Path,
        size: SizeClass,
        network: &Network,
    ) -> Result<LocalSandbox, String> {
        let egress = self.egress(workspace, network)?;
        let socket = egress.as_ref().and_then(EgressProxy::socket);
        let opened = Descriptors::open(workspace, &self.settings.binary, socket)
            .map_err(|e| format!("opening the sandbox's files: {e}"))?;
        let mut command = Command::new(&self.settings.bwrap);
        command.args(arguments(&opened, size));
        command
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        if let Some(uid) = self.settings.run_as {
            command.uid(uid).gid(uid);
        }
        opened.inherit(&mut command);
        let mut child = command
            .spawn()
            .map_err(|e| format!("{}: {e}", self.settings.bwrap.display()))?;
        drop(opened);
        let (Some(stdin), Some(mut stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err("the sandbox's pipes were not opened".into());
        };
        let ready = tokio::time::timeout(START_TIMEOUT, read_envelope(&mut stdout)).await;
        match ready {
            Ok(Ok(Some(Envelope {
                reply: Reply::Ready,
                ..
            }))) => {}
            Ok(_) => {
                let _ = child.start_kill();
                return Err(first_line(stderr).await);
            }
            Err(_) => {
                let _ = child.start_kill();
                return Err("no answer within 60 s".into());
            }
        }
        Ok(LocalSandbox::new(child, stdin, stdout, egress))
    }
}

/// The first line bwrap (or the helper) wrote to standard error.
async fn first_line(stderr: tokio::process::ChildStderr) -> String {
    let mut line = String::new();
    let mut reader = tokio::io::BufReader::new(stderr);
    let read = tokio::time::timeout(Duration::from_secs(5), reader.read_line(&mut line)).await;
    match (read, line.trim()) {
        (Ok(Ok(_)), text) if !text.is_empty() => text.chars().take(300).collect(),
        _ => "the sandbox ended before it was ready".into(),
    }
}

impl SandboxRuntime for LocalRuntime {
    fn kind(&self) -> RuntimeKind {
        RuntimeKind::Local
    }

    fn probe(&self) -> RuntimeFuture<'_, Result<(), String>> {
        Box::pin(async move {
            self.probed
                .get_or_init(|| async {
                    let workspace = self.settings.dir.join(".probe").join("workspace");
                    let made = std::fs::create_dir_all(&self.settings.dir)
                        .and_then(|()| {
                            use std::os::unix::fs::PermissionsExt;
                            // Another uid reaches its workspace through
                            // this directory: traversable, not listable.
                            std::fs::set_permissions(
                                &self.settings.dir,
                                std::fs::Permissions::from_mode(0o711),
                            )
                        })
                        .and_then(|()| self.own_dir(workspace.parent().unwrap_or(&workspace)))
                        .and_then(|()| self.own_dir(&workspace));
                    if let Err(error) = made {
                        return Err(format!("{}: {error}", self.settings.dir.display()));
                    }
                    let sandbox = self
                        .launch(&workspace, SizeClass::Small, &Network::default())
                        .await?;
                    sandbox.kill();
                    Ok(())
                })
                .await
                .clone()
        })
    }

    fn start(&self, spec: StartSpec) -> RuntimeFuture<'_, Result<Box<dyn RunningSandbox>, String>> {
        Box::pin(async move {
            let workspace = self
                .workspace(spec.instance, true)
                .map_err(|e| format!("making the workspace: {e}"))?;
            let sandbox = self.launch(&workspace, spec.size, &spec.network).await?;
            Ok(Box::new(sandbox) as Box<dyn RunningSandbox>)
        })
    }

    fn resume(
        &self,
        spec: StartSpec,
    ) -> RuntimeFuture<'_, Result<Box<dyn RunningSandbox>, String>> {
        Box::pin(async move {
            let workspace = self
                .workspace(spec.instance, false)
                .map_err(|e| format!("the workspace: {e}"))?;
            let sandbox = self.launch(&workspace, spec.size, &spec.network).await?;
            Ok(Box::new(sandbox) as Box<dyn RunningSandbox>)
        })
    }

    fn stop(&self, sandbox: Box<dyn RunningSandbox>) -> RuntimeFuture<'_, ()> {
        // Dropping a local sandbox kills its process tree.
        drop(sandbox);
        Box::pin(async {})
    }

    fn destroy(&self, instance: InstanceId) -> RuntimeFuture<'_, Result<(), String>> {
        let dir = self.instance_dir(instance);
        Box::pin(async move {
            match tokio::fs::remove_dir_all(&dir).await {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(format!("removing the workspace: {e}")),
            }
        })
    }
}
