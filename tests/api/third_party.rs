//! Third-party peers as child processes, installed by
//! `tests/peers/install`: llmock (PyPI; a scenario API that injects faults),
//! aimock (npm; fixtures, and it checks the thinking blocks a tool loop
//! sends back) and an MCP server built on the MCP Python SDK (PyPI). Each listens on an ephemeral port it prints; readiness is
//! that line.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

/// A running third-party mock; killed on drop.
pub struct ThirdPartyMock {
    child: Child,
    /// `http://127.0.0.1:{port}`.
    pub base: String,
    http: reqwest::Client,
}

fn peers() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers")
}

/// The `http://127.0.0.1:{port}` a line announces (uvicorn's "Uvicorn
/// running on …", aimock's "listening on …"), if any.
fn announced(line: &str) -> Option<String> {
    let at = line.find("http://127.0.0.1:")?;
    let rest = &line[at + "http://127.0.0.1:".len()..];
    let port: String = rest.chars().take_while(char::is_ascii_digit).collect();
    (!port.is_empty() && port != "0").then(|| format!("http://127.0.0.1:{port}"))
}

impl ThirdPartyMock {
    fn spawn(mut command: Command, what: &str) -> Self {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {what}: {e} (run `tests/peers/install`)"));
        let (tx, rx) = mpsc::channel();
        for pipe in [
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn std::io::Read + Send>),
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn std::io::Read + Send>),
        ]
        .into_iter()
        .flatten()
        {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                    if let Some(base) = announced(&line) {
                        let _ = tx.send(base);
                    }
                }
            });
        }
        let base = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("{what} did not say where it listens within 60 s"));
        Self {
            child,
            base,
            http: reqwest::Client::new(),
        }
    }

    /// llmock (`llmock serve`), answering in its `static` style.
    pub fn llmock() -> Self {
        let binary = peers().join(".venv/bin/llmock");
        let mut command = Command::new(&binary);
        command
            .args(["serve", "--port", "0", "--response-style", "static"])
            .args(["--tool-mode", "off"])
            .env("NO_COLOR", "1");
        Self::spawn(command, "llmock")
    }

    /// aimock (its `llmock` bin, the fixture server) with `fixtures`, a file
    /// under `tests/fixtures/aimock/`.
    pub fn aimock(fixtures: &str) -> Self {
        let cli = peers().join("node_modules/@copilotkit/aimock/dist/cli.js");
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/aimock")
            .join(fixtures);
        let mut command = Command::new("node");
        command
            .arg(cli)
            .args(["--port", "0", "--chunk-size", "12", "--strict"])
            .arg("--fixtures")
            .arg(fixtures);
        Self::spawn(command, "aimock")
    }

    /// The MCP SDK's FastMCP server of `tests/peers/mcp_server.py` over
    /// `transport` (`streamable-http` or `sse`).
    pub fn fastmcp(transport: &str) -> Self {
        let mut command = Command::new(peers().join(".venv/bin/python"));
        command
            .arg(peers().join("mcp_server.py"))
            .args(["--transport", transport]);
        Self::spawn(command, "the MCP server")
    }

    /// `tests/peers/oauth_mcp_server.py`: an MCP server whose calls need a
    /// token of its own authorization server (served beside it).
    pub fn oauth_mcp() -> Self {
        let mut command = Command::new(peers().join(".venv/bin/python"));
        command.arg(peers().join("oauth_mcp_server.py"));
        Self::spawn(command, "the OAuth MCP server")
    }

    /// The same, its authorization server holding `client_id` registered
    /// beforehand (for Confer's `mcp_managed_oauth`).
    pub fn oauth_mcp_with_client(client_id: &str) -> Self {
        let mut command = Command::new(peers().join(".venv/bin/python"));
        command
            .arg(peers().join("oauth_mcp_server.py"))
            .env("OAUTH_PEER_CLIENT_ID", client_id);
        Self::spawn(command, "the OAuth MCP server")
    }

    /// llmock: queues scenario behaviours (`POST /_llmock/scenario`).
    pub async fn scenario(&self, behaviors: Value) {
        let response = self
            .http
            .post(format!("{}/_llmock/scenario", self.base))
            .json(&serde_json::json!({ "behaviors": behaviors }))
            .send()
            .await
            .expect("llmock scenario");
        assert!(
            response.status().is_success(),
            "{:?}",
            response.text().await
        );
    }

    /// GET a JSON document of the mock's own API (llmock's
    /// `/_llmock/requests` and `/_llmock/verdict`, aimock's
    /// `/__aimock/journal`).
    pub async fn get(&self, path: &str) -> Value {
        self.http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .expect("mock API")
            .json()
            .await
            .expect("mock API JSON")
    }
}

impl Drop for ThirdPartyMock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_listening_line_names_the_port() {
    assert_eq!(
        announced("INFO:     Uvicorn running on http://127.0.0.1:41835 (Press CTRL+C to quit)"),
        Some("http://127.0.0.1:41835".into())
    );
    assert_eq!(announced("│  Listening  http://127.0.0.1:0   │"), None);
}
