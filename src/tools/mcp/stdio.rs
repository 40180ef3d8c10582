//! stdio MCP servers (`tools.md` §6): the operator's allow-lists of whole
//! command lines (`CONFER_MCP_STDIO_ALLOW`) and of the variable names a
//! server's `env` may set (`CONFER_MCP_STDIO_ENV_ALLOW`), and the child
//! process. A child is started with a cleared environment (it never sees
//! Confer's keys or secrets), no inherited descriptors but its pipes, its
//! own `HOME` under a directory outside the data directory, in a process
//! group of its own that is killed whole when the session ends or Confer
//! dies (`PR_SET_PDEATHSIG`), and, when Confer runs as root, as another
//! user (`CONFER_MCP_STDIO_UID`), so it cannot read the data directory.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// The `PATH` a child gets.
const CHILD_PATH: &str = "/usr/bin:/bin";

/// The command lines stdio servers may run.
#[derive(Clone, Debug, Default)]
pub struct StdioAllowList {
    entries: Vec<Vec<String>>,
}

impl StdioAllowList {
    /// The setting's argv arrays, each non-empty with a named command;
    /// `*` only as an entry's last argument. None allows none.
    pub fn new(entries: Vec<Vec<String>>) -> Result<Self, String> {
        for entry in &entries {
            let Some((command, args)) = entry.split_first() else {
                return Err("mcp_stdio_allow: an entry is empty".into());
            };
            if command == "*" || command.is_empty() {
                return Err("mcp_stdio_allow: a command must be named".into());
            }
            if let Some((_, before_last)) = args.split_last()
                && before_last.iter().any(|a| a == "*")
            {
                return Err("mcp_stdio_allow: `*` may only be an entry's last argument".into());
            }
        }
        Ok(Self { entries })
    }

    /// Whether `command` with `args` equals an entry (`*` as an entry's
    /// last argument stands for any one argument).
    pub fn allows(&self, command: &str, args: &[String]) -> bool {
        self.entries.iter().any(|entry| {
            let Some((allowed, allowed_args)) = entry.split_first() else {
                return false;
            };
            allowed == command
                && allowed_args.len() == args.len()
                && allowed_args
                    .iter()
                    .zip(args)
                    .enumerate()
                    .all(|(at, (allowed, given))| {
                        allowed == given || (allowed == "*" && at + 1 == allowed_args.len())
                    })
        })
    }
}

/// Variable names a child always gets from Confer, never from `env`.
pub const RESERVED_ENV: [&str; 2] = ["PATH", "HOME"];

/// How stdio children are started: the operator's settings.
#[derive(Clone, Debug)]
pub struct StdioConfig {
    /// The command lines a server may run.
    pub allow: StdioAllowList,
    /// The variable names a server's `env` may set.
    pub env_allow: BTreeSet<String>,
    /// Under which each server gets its `HOME` (one directory per server);
    /// never inside the data directory.
    pub homes: PathBuf,
    /// The uid (and gid) children run as when Confer runs as root; `None`:
    /// Confer's own user.
    pub run_as: Option<u32>,
}

impl StdioConfig {
    /// The settings' form: `env_allow` comma-separated; `homes` checked to
    /// lie outside `data_dir` (both are created); `uid` used only when
    /// Confer runs as root.
    pub fn new(
        allow: StdioAllowList,
        env_allow: &str,
        homes: PathBuf,
        data_dir: &Path,
        uid: u32,
    ) -> Result<Self, String> {
        let env_allow: BTreeSet<String> = env_allow
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(str::to_owned)
            .collect();
        if let Some(bad) = env_allow
            .iter()
            .find(|name| !valid_env_name(name) || RESERVED_ENV.contains(&name.as_str()))
        {
            return Err(format!(
                "mcp_stdio_env_allow: `{bad}` is not a variable name a server may set"
            ));
        }
        for dir in [&homes, &data_dir.to_path_buf()] {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("creating {}: {}", dir.display(), e.kind()))?;
        }
        let canonical = |dir: &Path| {
            dir.canonicalize()
                .map_err(|e| format!("resolving {}: {}", dir.display(), e.kind()))
        };
        let (homes, data) = (canonical(&homes)?, canonical(data_dir)?);
        if homes.starts_with(&data) || data.starts_with(&homes) {
            return Err(format!(
                "mcp_stdio_homes ({}) must lie outside the data directory ({})",
                homes.display(),
                data.display()
            ));
        }
        let run_as = running_as_root().then_some(uid);
        if run_as.is_some() {
            // Children of another uid reach their own home only through
            // this directory: traversable, not listable.
            set_mode(&homes, 0o711).map_err(|e| format!("mcp_stdio_homes: {}", e.kind()))?;
        }
        Ok(Self {
            allow,
            env_allow,
            homes,
            run_as,
        })
    }

    /// The name of the first variable in `env` the operator did not allow.
    pub fn refused_env<'a>(&self, env: &'a BTreeMap<String, String>) -> Option<&'a str> {
        env.keys()
            .map(String::as_str)
            .find(|name| !self.env_allow.contains(*name))
    }

    /// The home of `server`'s children.
    pub fn home_of(&self, server: &str) -> PathBuf {
        self.homes.join(server)
    }

    /// Removes the home of a deleted server (whatever its child left).
    pub fn remove_home(&self, server: &str) {
        let home = self.home_of(server);
        if let Err(error) = std::fs::remove_dir_all(&home)
            && error.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(home = %home.display(), kind = %error.kind(), "removing a stdio server's home failed");
        }
    }
}

/// A variable name: letters, digits and `_`, not starting with a digit.
pub fn valid_env_name(name: &str) -> bool {
    !name.is_empty()
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !name.as_bytes()[0].is_ascii_digit()
}

fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub(crate) fn running_as_root() -> bool {
    // SAFETY: `geteuid` takes nothing and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(crate) fn running_as_root() -> bool {
    false
}

/// A running child: killed with its process group when dropped.
pub struct StdioChild {
    child: Child,
}

impl Drop for StdioChild {
    fn drop(&mut self) {
        kill_group(&self.child);
        // Reaped by tokio in the background (`kill_on_drop`).
        let _ = self.child.start_kill();
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn kill_group(child: &Child) {
    if let Some(pid) = child.id().and_then(|id| libc::pid_t::try_from(id).ok()) {
        // SAFETY: `kill` takes plain integers and touches no memory of
        // ours; the child leads its own group (`process_group(0)`), so the
        // negative pid names that group and nothing else.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn kill_group(_child: &Child) {}

/// Asks the kernel to kill the child when the thread that started it
/// ends (Confer's runtime threads live as long as the process).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn die_with_parent(command: &mut Command) {
    // SAFETY: the closure runs in the forked child before `exec` and only
    // calls `prctl`, which is async-signal-safe and touches no memory.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn die_with_parent(_command: &mut Command) {}

/// Starts `command args` of server `server` with only `PATH`, `HOME` (its
/// own, created) and the allowed variables of `env` (a name the operator
/// no longer allows is left out); standard error is discarded (it may
/// echo what the server was given).
pub fn spawn(
    config: &StdioConfig,
    server: &str,
    command: &str,
    args: &[String],
    env: &BTreeMap<String, String>,
) -> std::io::Result<(StdioChild, ChildStdout, ChildStdin)> {
    let home = config.home_of(server);
    std::fs::create_dir_all(&home)?;
    set_mode(&home, 0o700)?;
    if let Some(uid) = config.run_as {
        std::os::unix::fs::chown(&home, Some(uid), Some(uid))?;
    }
    let allowed = env.iter().filter(|(name, _)| {
        let allowed = config.env_allow.contains(*name);
        if !allowed {
            tracing::warn!(%name, "a stdio server's variable is no longer allowed; left out");
        }
        allowed
    });
    let mut child = Command::new(command);
    child
        .args(args)
        .env_clear()
        .env("PATH", CHILD_PATH)
        .env("HOME", &home)
        .envs(allowed)
        .current_dir(&home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .kill_on_drop(true);
    if let Some(uid) = config.run_as {
        // std drops the supplementary groups when root changes the uid.
        child.uid(uid).gid(uid);
    }
    die_with_parent(&mut child);
    let mut child = child.spawn()?;
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        return Err(std::io::Error::other("the child's pipes were not opened"));
    };
    Ok((StdioChild { child }, stdout, stdin))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    fn list(json: &str) -> Result<StdioAllowList, String> {
        StdioAllowList::new(serde_json::from_str(json).unwrap())
    }

    #[test]
    fn only_whole_command_lines_of_the_list_are_allowed() {
        let list = list(r#"[["/usr/bin/uvx", "mcp-server-time"], ["/bin/files", "--root", "*"]]"#)
            .unwrap();
        assert!(list.allows("/usr/bin/uvx", &argv(&["mcp-server-time"])));
        assert!(!list.allows("/usr/bin/uvx", &argv(&["mcp-server-time", "--x"])));
        assert!(!list.allows("/usr/bin/uvx", &argv(&[])));
        assert!(!list.allows("uvx", &argv(&["mcp-server-time"])));
        assert!(list.allows("/bin/files", &argv(&["--root", "/srv"])));
        assert!(!list.allows("/bin/files", &argv(&["--root"])));
        assert!(!list.allows("/bin/files", &argv(&["--root", "/a", "/b"])));
        assert!(!StdioAllowList::default().allows("/bin/true", &[]));
    }

    #[test]
    fn a_malformed_list_is_refused() {
        for bad in [
            "[[]]",
            r#"[["*"]]"#,
            r#"[[""]]"#,
            r#"[["/bin/x", "*", "y"]]"#,
        ] {
            assert!(list(bad).is_err(), "{bad}");
        }
        assert!(list("[]").unwrap().entries.is_empty());
    }

    #[tokio::test]
    #[allow(unsafe_code)]
    async fn the_child_sees_none_of_our_environment() {
        use tokio::io::AsyncReadExt;
        let home = tempfile::tempdir().unwrap();
        // SAFETY: a test-only variable, set before the child starts.
        unsafe { std::env::set_var("CONFER_TEST_PARENT_SECRET", "do-not-leak") };
        let env = BTreeMap::from([
            ("GIVEN".to_owned(), "yes".to_owned()),
            ("LD_PRELOAD".to_owned(), "/tmp/evil.so".to_owned()),
        ]);
        let data = home.path().join("data");
        let config = StdioConfig::new(
            StdioAllowList::default(),
            "GIVEN, OTHER",
            home.path().join("homes"),
            &data,
            65534,
        )
        .unwrap();
        assert_eq!(config.refused_env(&env), Some("LD_PRELOAD"));
        let (child, mut stdout, stdin) = spawn(&config, "s1", "/usr/bin/env", &[], &env).unwrap();
        drop(stdin);
        let mut seen = String::new();
        stdout.read_to_string(&mut seen).await.unwrap();
        drop(child);
        assert!(!seen.contains("do-not-leak"), "{seen}");
        assert!(seen.contains("GIVEN=yes"), "{seen}");
        assert!(seen.contains("PATH=/usr/bin:/bin"), "{seen}");
        let mut names: Vec<&str> = seen.lines().filter_map(|l| l.split('=').next()).collect();
        names.sort_unstable();
        assert_eq!(names, ["GIVEN", "HOME", "PATH"]);
        config.remove_home("s1");
        assert!(!home.path().join("homes/s1").exists());
    }

    #[test]
    fn homes_inside_the_data_directory_and_bad_names_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let inside = StdioConfig::new(
            StdioAllowList::default(),
            "",
            data.join("mcp-home"),
            &data,
            65534,
        );
        assert!(inside.unwrap_err().contains("outside the data directory"));
        for bad in ["PATH", "1X", "A-B"] {
            let refused = StdioConfig::new(
                StdioAllowList::default(),
                bad,
                dir.path().join("h"),
                &data,
                1,
            );
            assert!(refused.is_err(), "{bad}");
        }
    }
}
