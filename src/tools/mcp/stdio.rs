//! stdio MCP servers (`tools.md` §6): the operator's allow-list of whole
//! command lines (`CONFER_MCP_STDIO_ALLOW`) and the child process, started
//! with a cleared environment (it never sees Confer's keys or secrets),
//! no inherited descriptors but its pipes, in a process group of its own
//! that is killed whole when the session ends.

use std::collections::BTreeMap;
use std::path::Path;
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

/// Starts `command args` with only `PATH`, `HOME` (`home`, created) and
/// `env`; standard error is discarded (it may echo what the server was
/// given).
pub fn spawn(
    command: &str,
    args: &[String],
    env: &BTreeMap<String, String>,
    home: &Path,
) -> std::io::Result<(StdioChild, ChildStdout, ChildStdin)> {
    std::fs::create_dir_all(home)?;
    let mut child = Command::new(command)
        .args(args)
        .env_clear()
        .env("PATH", CHILD_PATH)
        .env("HOME", home)
        .envs(env)
        .current_dir(home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()?;
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
        let env = BTreeMap::from([("GIVEN".to_owned(), "yes".to_owned())]);
        let (child, mut stdout, stdin) =
            spawn("/usr/bin/env", &[], &env, &home.path().join("h")).unwrap();
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
    }
}
