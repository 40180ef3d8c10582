//! Skills from a git repository (`agent-extras.md` acceptance point 2):
//! Debian's `git http-backend` under Debian's lighttpd (mod_cgi) on
//! loopback, allow-listed. The install records the commit; a sync with no
//! new commit fetches nothing; a changed `SKILL.md` is version 2; with the
//! server down the sync fails and `load_skill` still serves version 2. A
//! link in the skill's folder is refused, the token goes as basic auth.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Duration;

use serde_json::json;

use crate::common::{Options, Server, eventually};
use crate::mock::{Mock, Reply, openai_answer, openai_tool_call};

pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// lighttpd serving `root`'s bare repositories under `/git/` through
/// `git http-backend`, with an access log of each request line and its
/// `Authorization`.
pub(crate) struct GitHost {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl GitHost {
    pub(crate) async fn start(root: &Path) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let log = root.join("access.log");
        let config = root.join("lighttpd.conf");
        std::fs::write(
            &config,
            format!(
                r#"server.document-root = "{root}"
server.port = {port}
server.bind = "127.0.0.1"
server.modules = ("mod_cgi", "mod_alias", "mod_setenv", "mod_accesslog")
server.errorlog = "{root}/error.log"
accesslog.filename = "{log}"
accesslog.format = "%r|%{{Authorization}}i"
alias.url = ("/git" => "/usr/lib/git-core/git-http-backend")
$HTTP["url"] =~ "^/git" {{
  cgi.assign = ("" => "")
  setenv.add-environment = ("GIT_PROJECT_ROOT" => "{root}", "GIT_HTTP_EXPORT_ALL" => "")
}}
"#,
                root = root.display(),
                log = log.display(),
            ),
        )
        .unwrap();
        let child = Command::new("lighttpd")
            .arg("-D")
            .arg("-f")
            .arg(&config)
            .spawn()
            .expect("Debian's lighttpd (tests/peers/install)");
        eventually(Duration::from_secs(10), "lighttpd listening", async || {
            tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .ok()
        })
        .await;
        Self { child, port, log }
    }

    fn url(&self) -> String {
        self.repository("skills.git")
    }

    /// The URL of the bare repository `name` under the served root.
    pub(crate) fn repository(&self, name: &str) -> String {
        format!("http://127.0.0.1:{}/git/{name}", self.port)
    }

    /// The request lines logged so far: a marker request of its own is
    /// logged first (lighttpd writes its log in batches), so every earlier
    /// request is in.
    pub(crate) async fn requests(&self) -> Vec<String> {
        let marker = format!("/marker-{}", uuid::Uuid::new_v4());
        let _ = reqwest::get(format!("http://127.0.0.1:{}{marker}", self.port)).await;
        eventually(Duration::from_secs(10), "the access log", async || {
            let lines: Vec<String> = std::fs::read_to_string(&self.log)
                .unwrap_or_default()
                .lines()
                .map(str::to_owned)
                .collect();
            lines.iter().any(|l| l.contains(&marker)).then_some(lines)
        })
        .await
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for GitHost {
    fn drop(&mut self) {
        self.stop();
    }
}

fn skill_md(description: &str, body: &str) -> String {
    format!("---\nname: deploys\ndescription: {description}\n---\n{body}")
}

#[tokio::test]
async fn git_skills_install_at_a_commit_and_sync_only_when_it_moves() {
    let root = tempfile::tempdir().unwrap();
    let (bare, work) = (root.path().join("skills.git"), root.path().join("work"));
    git(
        root.path(),
        &["init", "-q", "--bare", bare.to_str().unwrap()],
    );
    git(
        root.path(),
        &["init", "-q", "-b", "main", work.to_str().unwrap()],
    );
    std::fs::create_dir_all(work.join("skills/deploys/references")).unwrap();
    std::fs::write(work.join("README.md"), "outside the skill\n").unwrap();
    std::fs::write(
        work.join("skills/deploys/SKILL.md"),
        skill_md("Ship safely.", "One.\n"),
    )
    .unwrap();
    std::fs::write(
        work.join("skills/deploys/references/checklist.md"),
        "- tests\n",
    )
    .unwrap();
    git(&work, &["add", "."]);
    git(&work, &["commit", "-q", "-m", "one"]);
    git(&work, &["push", "-q", bare.to_str().unwrap(), "main"]);
    git(&bare, &["symbolic-ref", "HEAD", "refs/heads/main"]);
    // A branch whose skill holds a link.
    git(&work, &["checkout", "-q", "-b", "linked"]);
    std::os::unix::fs::symlink("/etc/passwd", work.join("skills/deploys/passwd")).unwrap();
    git(&work, &["add", "."]);
    git(&work, &["commit", "-q", "-m", "link"]);
    git(&work, &["push", "-q", bare.to_str().unwrap(), "linked"]);
    git(&work, &["checkout", "-q", "main"]);
    let first = git(&work, &["rev-parse", "HEAD"]);

    let mut host = GitHost::start(root.path()).await;
    let vendor = Mock::start("/v1").await;
    let server = Server::start_with(
        Options::default()
            .env("CONFER_OUTBOUND_ALLOW", "127.0.0.1")
            .env("OPENAI_BASE_URL", &vendor.base)
            .env("OPENAI_API_KEY", "sk-platform"),
    );
    let api = server.admin();

    let refused = api
        .post(
            "/api/skills",
            json!({"source": "git", "url": "http://10.0.0.7/skills.git"}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(refused.starts_with("url: "), "{refused}");
    let linked = api
        .post(
            "/api/skills",
            json!({"source": "git", "url": host.url(), "ref": "linked"}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert_eq!(linked, "skills/deploys/passwd: a link");

    let skill = api
        .post(
            "/api/skills",
            json!({"source": "git", "url": host.url(), "token": "tok-git"}),
        )
        .await
        .expect(201);
    assert_eq!(skill["source"], "git");
    assert_eq!(skill["revision"], first.as_str());
    assert_eq!(skill["version"], 1);
    assert_eq!(
        skill["files"],
        json!([{"path": "SKILL.md", "size": skill_md("Ship safely.", "One.\n").len()},
               {"path": "references/checklist.md", "size": 8}])
    );
    // `x-access-token:tok-git`, as basic auth.
    let logged = host.requests().await;
    assert!(
        logged
            .iter()
            .any(|r| r.ends_with("|Basic eC1hY2Nlc3MtdG9rZW46dG9rLWdpdA==")),
        "{logged:?}"
    );
    let id = skill["id"].as_str().unwrap().to_owned();
    let sync = format!("/api/skills/{id}/sync");

    let fetches = |logged: Vec<String>| {
        logged
            .iter()
            .filter(|r| r.starts_with("POST") && r.contains("git-upload-pack"))
            .count()
    };
    // The same commit fetches nothing: at most the one exchange that lists
    // the remote's refs (protocol v2's `ls-refs` is a POST too), fewer
    // than a fetch makes.
    let before = fetches(host.requests().await);
    let unchanged = api.post(&sync, json!({})).await.expect(200);
    assert_eq!(unchanged["outcome"], "unchanged", "{unchanged}");
    let listing = fetches(host.requests().await) - before;
    assert!(listing <= 1, "{listing} upload-pack exchanges");

    std::fs::write(
        work.join("skills/deploys/SKILL.md"),
        skill_md("Ship safely.", "Two.\n"),
    )
    .unwrap();
    git(&work, &["commit", "-q", "-am", "two"]);
    git(&work, &["push", "-q", bare.to_str().unwrap(), "main"]);
    let second = git(&work, &["rev-parse", "HEAD"]);
    let before = fetches(host.requests().await);
    let updated = api.post(&sync, json!({})).await.expect(200);
    assert_eq!(updated["outcome"], "updated", "{updated}");
    assert!(
        fetches(host.requests().await) - before > listing,
        "a new commit is fetched"
    );
    assert_eq!(updated["skill"]["version"], 2);
    assert_eq!(updated["skill"]["revision"], second.as_str());

    host.stop();
    let failed = api.post(&sync, json!({})).await.expect(200);
    assert_eq!(failed["outcome"], "failed");
    assert_eq!(failed["skill"]["last_error"], "url: unreachable");
    assert_eq!(failed["skill"]["version"], 2);

    let agent = api
        .agent_with(json!({"name": "Deployer", "defaultModel": "openai/gpt-4.1"}))
        .await;
    api.post(
        &format!("/api/agents/{agent}/skills"),
        json!({"skillId": id}),
    )
    .await
    .expect(201);
    let thread = api.thread(&agent, json!({})).await;
    vendor.push(Reply::stream(openai_tool_call(
        "call_1",
        "load_skill",
        &json!({"name": "deploys"}),
    )));
    vendor.push(Reply::stream(openai_answer("Loaded.", 10)));
    api.say(&thread, json!({"content": "deploy"})).await;
    let last = vendor.requests().pop().unwrap();
    let messages = last.body["messages"].as_array().unwrap();
    let tool = messages.iter().rev().find(|m| m["role"] == "tool").unwrap();
    assert!(tool["content"].as_str().unwrap().contains("Two."), "{tool}");
    assert!(!server.stderr.lock().unwrap().contains("tok-git"));
}
