//! What a code session does inside its sandbox (`computer.md` §6): the
//! repository's tar sent in pieces and unpacked there (by the sandbox's
//! own `tar`, as the sandbox's user, so a link in it reaches nothing of
//! the host), an archive's snapshot commit, the setup command, `HEAD`,
//! and the diff against the base commit, computed with a temporary
//! `GIT_INDEX_FILE` so the real index is untouched and untracked files
//! count (ignored ones don't).

use std::path::Path;
use std::time::Duration;

use chrono::Utc;
use tokio::io::AsyncReadExt;

use super::sessions::{DiffFile, SessionDiff};
use crate::computer::config::ComputerConfig;
use crate::computer::protocol::MAX_APPEND;
use crate::computer::runtime::{ExecSpec, Reply};
use crate::computer::service::Lease;

/// Where the seed lands in the workspace before it is unpacked.
const SEED: &str = ".confer-seed.tar";
/// The most diff text kept (`computer.md` §6 rule 7).
pub const MAX_DIFF_BYTES: usize = 1 << 20;
/// A git command's time in the sandbox.
const GIT_TIMEOUT: Duration = Duration::from_secs(120);

/// A command's end: its exit code (`None`: a signal or a timeout), its
/// output (head and tail joined) and whether any was cut.
pub struct Ran {
    pub exit_code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub cut: bool,
    pub timed_out: bool,
}

impl Ran {
    /// The reason the command failed, if it did.
    pub fn failure(&self) -> Option<String> {
        if self.timed_out {
            return Some("timed out".into());
        }
        match self.exit_code {
            Some(0) => None,
            Some(code) => Some(format!("exit status {code}")),
            None => Some("killed by a signal".into()),
        }
    }
}

/// Runs `command` in the workspace, keeping `keep` bytes of each stream.
pub async fn run(
    lease: &Lease,
    config: &ComputerConfig,
    command: String,
    timeout: Duration,
    keep: usize,
) -> Result<Ran, String> {
    let sandbox = lease
        .sandbox()
        .ok_or("computer unavailable: the sandbox stopped")?;
    let mut spec = ExecSpec::in_workspace(
        command,
        &lease.instance.workspace_path,
        config,
        lease.instance.size_class.rlimits(),
        timeout,
    );
    spec.keep = keep;
    match sandbox.exec(spec).await {
        Reply::Exec {
            exit_code,
            timed_out,
            stdout,
            stderr,
            ..
        } => Ok(Ran {
            exit_code,
            cut: stdout.cut > 0 || stderr.cut > 0,
            stdout: stdout.head + &stdout.tail,
            stderr: stderr.head + &stderr.tail,
            timed_out,
        }),
        Reply::Error { message } => Err(message),
        _ => Err("computer unavailable: the sandbox answered out of turn".into()),
    }
}

/// Runs a git step that must succeed; its stdout.
async fn git(lease: &Lease, config: &ComputerConfig, script: String) -> Result<String, String> {
    let ran = run(lease, config, script, GIT_TIMEOUT, 64 * 1024).await?;
    match ran.failure() {
        None => Ok(ran.stdout),
        Some(why) => Err(format!(
            "{why}: {}",
            ran.stderr.lines().last().unwrap_or_default()
        )),
    }
}

/// Sends the tar at `tar` into the workspace and unpacks it there.
pub async fn unpack(lease: &Lease, config: &ComputerConfig, tar: &Path) -> Result<(), String> {
    let sandbox = lease
        .sandbox()
        .ok_or("computer unavailable: the sandbox stopped")?;
    let io = |e: std::io::Error| format!("reading the repository's tar failed ({})", e.kind());
    let mut file = tokio::fs::File::open(tar).await.map_err(io)?;
    let mut truncate = true;
    loop {
        let mut piece = Vec::with_capacity(MAX_APPEND);
        (&mut file)
            .take(MAX_APPEND as u64)
            .read_to_end(&mut piece)
            .await
            .map_err(io)?;
        if piece.is_empty() && !truncate {
            break;
        }
        let last = piece.len() < MAX_APPEND;
        match sandbox.append_file(SEED.into(), piece, truncate).await {
            Reply::Done => {}
            Reply::Error { message } => return Err(message),
            _ => return Err("computer unavailable: the sandbox answered out of turn".into()),
        }
        truncate = false;
        if last {
            break;
        }
    }
    git(
        lease,
        config,
        format!("tar -xf {SEED} --no-same-owner && rm -f {SEED}"),
    )
    .await
    .map(|_| ())
}

/// Commits an unpacked archive as `confer: initial snapshot`.
pub async fn snapshot(lease: &Lease, config: &ComputerConfig) -> Result<(), String> {
    git(
        lease,
        config,
        "git init --quiet -b main && git add -A && git -c user.name=Confer \
         -c user.email=confer@localhost commit --quiet --no-verify --allow-empty \
         -m 'confer: initial snapshot'"
            .into(),
    )
    .await
    .map(|_| ())
}

/// The commit `HEAD` names.
pub async fn head(lease: &Lease, config: &ComputerConfig) -> Result<String, String> {
    let out = git(lease, config, "git rev-parse --verify HEAD".into()).await?;
    Ok(out.trim().to_owned())
}

/// Whether `commit` is a commit id (so it may go in a command line).
fn is_commit(commit: &str) -> bool {
    (7..=64).contains(&commit.len()) && commit.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The workspace's changes against `base`.
pub async fn diff(
    lease: &Lease,
    config: &ComputerConfig,
    base: &str,
) -> Result<SessionDiff, String> {
    if !is_commit(base) {
        return Err("the session has no base commit".into());
    }
    let script = format!(
        "set -e; index=$(mktemp); trap 'rm -f \"$index\"' EXIT; export GIT_INDEX_FILE=\"$index\"; \
         git read-tree HEAD; git add -A; \
         git diff --cached --no-ext-diff --no-textconv -M --name-status {base}; echo '--confer--'; \
         git diff --cached --no-ext-diff --no-textconv -M --numstat {base}; echo '--confer--'; \
         git diff --cached --no-ext-diff --no-textconv -M {base}"
    );
    let ran = run(
        lease,
        config,
        script,
        GIT_TIMEOUT,
        MAX_DIFF_BYTES + 256 * 1024,
    )
    .await?;
    if let Some(why) = ran.failure() {
        return Err(format!(
            "the diff failed ({why}): {}",
            ran.stderr.lines().last().unwrap_or_default()
        ));
    }
    Ok(parse_diff(&ran.stdout, ran.cut))
}

/// Reads the diff script's three sections: name-status, numstat, patch.
fn parse_diff(output: &str, cut: bool) -> SessionDiff {
    let mut sections = output.splitn(3, "--confer--\n");
    let (names, counts, patch) = (
        sections.next().unwrap_or_default(),
        sections.next().unwrap_or_default(),
        sections.next().unwrap_or_default(),
    );
    let files = names
        .lines()
        .zip(counts.lines().map(Some).chain(std::iter::repeat(None)))
        .filter_map(|(name, count)| {
            let mut fields = name.split('\t');
            let letter = fields.next()?.chars().next()?;
            let path = fields.next_back()?.to_owned();
            let status = match letter {
                'A' => "added",
                'D' => "deleted",
                'R' => "renamed",
                _ => "modified",
            };
            let mut numbers = count.unwrap_or_default().split('\t');
            let mut number = || numbers.next().and_then(|n| n.parse().ok()).unwrap_or(0);
            let (additions, deletions) = (number(), number());
            Some(DiffFile {
                path,
                status: status.into(),
                additions,
                deletions,
            })
        })
        .collect();
    let mut diff = patch.to_owned();
    let mut truncated = cut;
    if diff.len() > MAX_DIFF_BYTES {
        let mut end = MAX_DIFF_BYTES;
        while !diff.is_char_boundary(end) {
            end -= 1;
        }
        diff.truncate(end);
        truncated = true;
    }
    SessionDiff {
        diff,
        files,
        truncated,
        computed_at: Utc::now(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_diff_script_s_sections_are_read_file_by_file() {
        let output = "M\tREADME.md\nA\tnew.txt\nR100\told.rs\tnew.rs\n--confer--\n\
                      1\t1\tREADME.md\n3\t0\tnew.txt\n0\t0\told.rs => new.rs\n--confer--\n\
                      diff --git a/README.md b/README.md\n";
        let diff = parse_diff(output, false);
        assert_eq!(diff.files.len(), 3);
        assert_eq!(diff.files[0].path, "README.md");
        assert_eq!(diff.files[0].status, "modified");
        assert_eq!((diff.files[0].additions, diff.files[0].deletions), (1, 1));
        assert_eq!(diff.files[1].status, "added");
        assert_eq!(diff.files[1].additions, 3);
        assert_eq!(diff.files[2].status, "renamed");
        assert_eq!(diff.files[2].path, "new.rs");
        assert!(diff.diff.starts_with("diff --git"));
        assert!(!diff.truncated);
        assert!(!is_commit("HEAD; rm -rf /"));
        assert!(is_commit("0123abcd"));
    }
}
