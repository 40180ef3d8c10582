//! The one git fetcher (computer.md §6 rule 1; agent-extras.md §1): the
//! host's `git` (`CONFER_GIT_PATH`) with its environment cleared, no
//! system or global configuration, http(s) only, no redirects, hooks or
//! submodules, objects checked by fsck, and its `http.proxy` a loopback
//! [`EgressProxy`] that reaches only the repository's host under the
//! outbound policy and cuts the pack past its cap. A token goes as basic
//! auth through `GIT_CONFIG_*` variables, never the command line. A fetch
//! is depth 1 into a temporary bare repository under the data directory,
//! removed after it (and at start); its tree is read with `ls-tree` (sizes
//! before any byte) and `cat-file --batch`.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

use super::egress::{EgressProxy, EgressRules};
use super::git_output::{parse_batch, parse_tree};
use super::{Outbound, OutboundPolicy};

/// One fetch: the repository, its ref and token, and the caps.
pub struct GitRequest<'a> {
    pub url: &'a str,
    /// A branch or tag; `None`: the remote's HEAD.
    pub git_ref: Option<&'a str>,
    pub token: Option<&'a str>,
    /// The most pack bytes brought over.
    pub max_pack: u64,
    pub timeout: Duration,
}

/// A blob of the fetched tree: its path, mode and size, before reading.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeEntry {
    pub path: String,
    /// `100644`, `100755`, `120000` (a link), `160000` (a submodule)…
    pub mode: String,
    pub object: String,
    pub size: u64,
}

/// Whether `name` is a branch or tag name git accepts, and one that
/// cannot pass as an option or a refspec (a skill's `ref`, a code agent's
/// or session's branch).
pub fn is_ref_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 200
        && !name.starts_with(['-', '/', '.'])
        && !name.ends_with(['/', '.'])
        && !name.contains("..")
        && !name.contains("@{")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
}

/// Runs the host's git.
pub struct GitFetcher {
    git: PathBuf,
    scratch: PathBuf,
    policy: Arc<OutboundPolicy>,
}

/// A temporary directory removed on drop.
pub(crate) struct Scratch(PathBuf);

impl Scratch {
    pub(crate) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The reason a git call failed: tools.md §2's words where they fit.
fn failure(proxy: &EgressProxy, stderr: &str, max_pack: u64) -> String {
    if proxy.over_cap() {
        return format!("pack over {} MiB", max_pack >> 20);
    }
    if proxy.refused() {
        return "address refused by outbound policy".into();
    }
    let lower = stderr.to_ascii_lowercase();
    if lower.contains("couldn't find remote ref") || lower.contains("not our ref") {
        "no such ref".into()
    } else if lower.contains("authentication failed") || lower.contains(" 401") {
        "http 401".into()
    } else if lower.contains(" 403") {
        "http 403".into()
    } else if lower.contains(" 404") || lower.contains("not found") {
        "http 404".into()
    } else if lower.contains("fsck") || lower.contains("bad object") {
        "the repository failed fsck".into()
    } else {
        "unreachable".into()
    }
}

impl GitFetcher {
    /// `git` at `git` (a name on `PATH` or a path); scratch repositories
    /// under `data_dir/git-scratch`, emptied now (a crash's leftovers).
    pub fn new(git: &str, data_dir: &Path, outbound: &Outbound) -> Self {
        let scratch = data_dir.join("git-scratch");
        let _ = std::fs::remove_dir_all(&scratch);
        Self {
            git: PathBuf::from(git),
            scratch,
            policy: Arc::new(outbound.policy().clone()),
        }
    }

    /// A git command with the rules' environment.
    pub(crate) fn command(&self, proxy: &EgressProxy, home: &Path, token: Option<&str>) -> Command {
        let mut settings = vec![
            ("http.proxy".to_owned(), proxy.url()),
            ("http.followRedirects".into(), "false".into()),
            ("core.hooksPath".into(), "/dev/null".into()),
            ("transfer.fsckObjects".into(), "true".into()),
            ("fetch.fsckObjects".into(), "true".into()),
            ("fetch.recurseSubmodules".into(), "false".into()),
            ("protocol.allow".into(), "never".into()),
            ("protocol.http.allow".into(), "always".into()),
            ("protocol.https.allow".into(), "always".into()),
            ("credential.helper".into(), String::new()),
            ("http.lowSpeedLimit".into(), "1".into()),
            ("http.lowSpeedTime".into(), "30".into()),
        ];
        if let Some(token) = token {
            let basic =
                base64::engine::general_purpose::STANDARD.encode(format!("x-access-token:{token}"));
            settings.push((
                "http.extraHeader".into(),
                format!("Authorization: Basic {basic}"),
            ));
        }
        let mut command = Command::new(&self.git);
        command
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("HOME", home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_ALLOW_PROTOCOL", "http:https")
            .env("GIT_CONFIG_COUNT", settings.len().to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for (i, (key, value)) in settings.into_iter().enumerate() {
            command
                .env(format!("GIT_CONFIG_KEY_{i}"), key)
                .env(format!("GIT_CONFIG_VALUE_{i}"), value);
        }
        command
    }

    /// The proxy for `url`'s host alone.
    pub(crate) async fn proxy_for(&self, url: &str, max_pack: u64) -> Result<EgressProxy, String> {
        let checked = self.policy.check_url(url)?;
        let host = checked.url.host_str().unwrap_or_default();
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_ascii_lowercase();
        let port = checked.url.port_or_known_default().unwrap_or(443);
        let rules = EgressRules {
            destinations: vec![(host, port)],
            entries: Vec::new(),
            download_cap: Some(max_pack),
        };
        EgressProxy::start(Arc::clone(&self.policy), rules)
            .await
            .map_err(|e| format!("the egress proxy did not start ({})", e.kind()))
    }

    /// A new scratch directory, removed when the answer is dropped.
    pub(crate) fn new_scratch(&self) -> Result<Scratch, String> {
        let dir = self.scratch.join(uuid::Uuid::now_v7().to_string());
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("no scratch directory ({})", e.kind()))?;
        Ok(Scratch(dir))
    }

    /// Runs `command` within `timeout`: its stdout, or the failure's
    /// reason.
    pub(crate) async fn run(
        &self,
        mut command: Command,
        proxy: &EgressProxy,
        request: &GitRequest<'_>,
    ) -> Result<Vec<u8>, String> {
        let child = command
            .spawn()
            .map_err(|e| format!("git did not start ({})", e.kind()))?;
        match tokio::time::timeout(request.timeout, child.wait_with_output()).await {
            Err(_) => Err(format!("timeout after {} ms", request.timeout.as_millis())),
            Ok(Err(error)) => Err(format!("git failed ({})", error.kind())),
            Ok(Ok(output)) if output.status.success() => Ok(output.stdout),
            Ok(Ok(output)) => {
                let stderr = String::from_utf8_lossy(&output.stderr);
                tracing::debug!(stderr = %stderr.chars().take(500).collect::<String>(), "git failed");
                Err(failure(proxy, &stderr, request.max_pack))
            }
        }
    }

    /// The commit the remote's ref (or HEAD) names now, without fetching.
    pub async fn remote_commit(&self, request: &GitRequest<'_>) -> Result<String, String> {
        let proxy = self.proxy_for(request.url, request.max_pack).await?;
        let home = self.new_scratch()?;
        let mut command = self.command(&proxy, &home.0, request.token);
        command.arg("ls-remote").arg("--").arg(request.url);
        match request.git_ref {
            Some(name) => command.args([
                format!("refs/heads/{name}"),
                format!("refs/tags/{name}"),
                format!("refs/tags/{name}^{{}}"),
            ]),
            None => command.arg("HEAD"),
        };
        let listed = self.run(command, &proxy, request).await?;
        let listed = String::from_utf8_lossy(&listed);
        let lines: Vec<(&str, &str)> = listed
            .lines()
            .filter_map(|line| line.split_once('\t'))
            .collect();
        // A peeled tag (`^{}`) names the commit; else the branch or tag.
        lines
            .iter()
            .find(|(_, name)| name.ends_with("^{}"))
            .or_else(|| lines.first())
            .map(|(commit, _)| (*commit).to_owned())
            .ok_or_else(|| "no such ref".into())
    }

    /// Fetches the ref (depth 1) and lists its tree; the repository stays
    /// until the answer is dropped.
    pub async fn fetch_tree(&self, request: &GitRequest<'_>) -> Result<FetchedTree<'_>, String> {
        let proxy = self.proxy_for(request.url, request.max_pack).await?;
        let scratch = self.new_scratch()?;
        let repository = scratch.0.join("repository.git");
        let home = scratch.0.join("home");
        std::fs::create_dir_all(&home).map_err(|e| format!("no home ({})", e.kind()))?;
        let mut init = self.command(&proxy, &home, None);
        init.args(["init", "--bare", "--quiet"]).arg(&repository);
        self.run(init, &proxy, request).await?;
        let mut fetch = self.command(&proxy, &home, request.token);
        fetch
            .arg("-C")
            .arg(&repository)
            .args([
                "fetch",
                "--quiet",
                "--depth=1",
                "--no-tags",
                "--no-recurse-submodules",
                "--",
            ])
            .arg(request.url)
            .arg(request.git_ref.unwrap_or("HEAD"));
        self.run(fetch, &proxy, request).await?;
        let mut parse = self.command(&proxy, &home, None);
        parse
            .arg("-C")
            .arg(&repository)
            .args(["rev-parse", "--verify", "FETCH_HEAD^{commit}"]);
        let commit = String::from_utf8_lossy(&self.run(parse, &proxy, request).await?)
            .trim()
            .to_owned();
        let mut list = self.command(&proxy, &home, None);
        list.arg("-C").arg(&repository).args([
            "ls-tree",
            "-r",
            "-z",
            "--long",
            "--full-tree",
            "FETCH_HEAD",
        ]);
        let entries = parse_tree(&self.run(list, &proxy, request).await?)?;
        Ok(FetchedTree {
            fetcher: self,
            proxy,
            repository,
            home,
            timeout: request.timeout,
            commit,
            entries,
            _scratch: scratch,
        })
    }
}

/// A fetched commit: its id and tree, and its blobs on demand. Dropping
/// it removes the repository.
pub struct FetchedTree<'a> {
    fetcher: &'a GitFetcher,
    proxy: EgressProxy,
    repository: PathBuf,
    home: PathBuf,
    timeout: Duration,
    pub commit: String,
    pub entries: Vec<TreeEntry>,
    _scratch: Scratch,
}

impl FetchedTree<'_> {
    /// The bytes of each of `objects`, in order.
    pub async fn read(&self, objects: &[String]) -> Result<Vec<Vec<u8>>, String> {
        let mut command = self.fetcher.command(&self.proxy, &self.home, None);
        command
            .arg("-C")
            .arg(&self.repository)
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped());
        let mut child = command
            .spawn()
            .map_err(|e| format!("git did not start ({})", e.kind()))?;
        let mut stdin = child.stdin.take().ok_or("git has no stdin")?;
        let list: String = objects.iter().map(|o| format!("{o}\n")).collect();
        let feeding = async move {
            let _ = stdin.write_all(list.as_bytes()).await;
        };
        let mut stdout = child.stdout.take().ok_or("git has no stdout")?;
        let reading = async {
            let mut all = Vec::new();
            stdout.read_to_end(&mut all).await.map(|_| all)
        };
        let (_, output) =
            tokio::time::timeout(self.timeout, futures_util::future::join(feeding, reading))
                .await
                .map_err(|_| format!("timeout after {} ms", self.timeout.as_millis()))?;
        let output = output.map_err(|e| format!("git failed ({})", e.kind()))?;
        let _ = child.wait().await;
        parse_batch(&output, objects.len())
    }
}
