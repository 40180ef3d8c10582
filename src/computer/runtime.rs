//! The `SandboxRuntime` port (`computer.md` §1): where an instance's
//! commands run. [`super::local`] is the bubblewrap runtime on this host;
//! the editor, the output caps and the instances' lifecycle
//! ([`super::service`]) sit above the port and are the same for every
//! runtime.

use std::future::Future;
use std::pin::Pin;

use serde::{Deserialize, Serialize};

use super::config::SizeClass;
use super::instances::InstanceId;
pub use super::protocol::{Limits, Reply};

/// A future of the port.
pub type RuntimeFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The runtimes an instance may run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum RuntimeKind {
    Local,
    E2b,
    Daytona,
}

impl RuntimeKind {
    /// Its name in the API.
    pub fn name(self) -> &'static str {
        match self {
            Self::Local => "local",
            Self::E2b => "e2b",
            Self::Daytona => "daytona",
        }
    }

    /// The workspace's path inside a sandbox of this runtime.
    pub fn workspace(self) -> &'static str {
        match self {
            Self::Local => super::agent::WORKSPACE,
            Self::E2b => "/home/user/workspace",
            Self::Daytona => "/home/daytona/workspace",
        }
    }
}

/// What a sandbox is started or resumed with.
#[derive(Clone, Debug)]
pub struct StartSpec {
    pub instance: InstanceId,
    pub size: SizeClass,
    /// How long a hosted sandbox may live unattended: the idle timeout,
    /// the longest command and a minute (`computer.md` §1).
    pub ttl_secs: u64,
    /// Its egress (a hosted vendor enforces its own).
    pub network: super::config::Network,
}

/// Where a command's streamed output goes: `(stream, delta)`, bounded
/// (a full channel drops the piece).
pub type OutputSender = tokio::sync::mpsc::Sender<(String, String)>;

/// One command.
#[derive(Clone, Debug)]
pub struct ExecSpec {
    pub command: String,
    pub cwd: Option<String>,
    pub timeout: std::time::Duration,
    pub env: Vec<(String, String)>,
    pub limits: Limits,
    /// Bytes kept of each stream's head, and again of its tail.
    pub keep: usize,
    /// Set when the output is streamed while the command runs.
    pub output: Option<OutputSender>,
}

impl ExecSpec {
    /// A command of Confer's own on a vendor's sandbox (making the
    /// workspace, listing a directory), where the vendor's limits apply:
    /// 30 s, 64 KiB of output kept.
    pub fn bare(command: String) -> Self {
        Self {
            command,
            cwd: None,
            timeout: std::time::Duration::from_secs(30),
            env: vec![("PATH".to_owned(), "/usr/local/bin:/usr/bin:/bin".to_owned())],
            limits: Limits {
                memory_bytes: u64::MAX,
                processes: u64::MAX,
                file_bytes: u64::MAX,
            },
            keep: 64 << 10,
            output: None,
        }
    }

    /// `command` in the workspace at `workspace`, as every command runs:
    /// `PATH`, `HOME` (the workspace), `LANG` and the configuration's
    /// `env`; its output kept to the configuration's limit.
    pub fn in_workspace(
        command: String,
        workspace: &str,
        config: &super::config::ComputerConfig,
        limits: Limits,
        timeout: std::time::Duration,
    ) -> Self {
        let mut env = vec![
            ("PATH".to_owned(), "/usr/local/bin:/usr/bin:/bin".to_owned()),
            ("HOME".to_owned(), workspace.to_owned()),
            ("LANG".to_owned(), "C.UTF-8".to_owned()),
        ];
        env.extend(config.env.iter().map(|(k, v)| (k.clone(), v.clone())));
        Self {
            command,
            cwd: None,
            timeout,
            env,
            limits,
            keep: config.output_limit_bytes,
            output: None,
        }
    }
}

/// A started sandbox: its operations run one at a time (the lifecycle's
/// lock); dropping it stops it.
pub trait RunningSandbox: Send + Sync {
    /// Runs one command; a [`Reply::Exec`], or [`Reply::Error`].
    fn exec(&self, spec: ExecSpec) -> RuntimeFuture<'_, Reply>;
    /// A file's text or a directory's listing.
    fn read_file(&self, path: String) -> RuntimeFuture<'_, Reply>;
    /// Writes a file atomically.
    fn write_file(&self, path: String, content: String) -> RuntimeFuture<'_, Reply>;
    /// Appends bytes to a file (emptied first when `truncate`); a piece is
    /// at most [`super::protocol::MAX_APPEND`] bytes.
    fn append_file(&self, path: String, bytes: Vec<u8>, truncate: bool)
    -> RuntimeFuture<'_, Reply>;
    /// Whether the sandbox still runs.
    fn is_alive(&self) -> bool;
    /// The hosted vendor's id of the sandbox (none for a local one).
    fn vendor_id(&self) -> Option<String> {
        None
    }
}

/// A runtime: it starts, resumes, stops and destroys sandboxes.
pub trait SandboxRuntime: Send + Sync {
    fn kind(&self) -> RuntimeKind;
    /// Whether this runtime can run sandboxes here; the reason if not.
    fn probe(&self) -> RuntimeFuture<'_, Result<(), String>>;
    /// Starts a new instance's sandbox on an empty workspace.
    fn start(&self, spec: StartSpec) -> RuntimeFuture<'_, Result<Box<dyn RunningSandbox>, String>>;
    /// Starts a stopped instance's sandbox again on its workspace.
    fn resume(&self, spec: StartSpec)
    -> RuntimeFuture<'_, Result<Box<dyn RunningSandbox>, String>>;
    /// Stops a sandbox (its processes end; the workspace stays).
    fn stop(&self, sandbox: Box<dyn RunningSandbox>) -> RuntimeFuture<'_, ()>;
    /// Removes an instance's workspace and whatever else it kept.
    fn destroy(&self, instance: InstanceId) -> RuntimeFuture<'_, Result<(), String>>;
    /// Stops the sandbox of an instance a restart left live (a hosted
    /// vendor's would run on, and end with its files at its time to live;
    /// a local one ended with Confer).
    fn stop_left(&self, instance: InstanceId) -> RuntimeFuture<'_, ()> {
        let _ = instance;
        Box::pin(async {})
    }
    /// Destroys this installation's sandboxes that no instance of `named`
    /// owns; how many. A hosted vendor's sandboxes outlive a crash; the
    /// local ones are the instances' own directories.
    fn sweep_orphans<'a>(
        &'a self,
        named: &'a std::collections::HashSet<InstanceId>,
    ) -> RuntimeFuture<'a, Result<usize, String>> {
        let _ = named;
        Box::pin(async { Ok(0) })
    }
}
