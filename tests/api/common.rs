//! The test harness: starts the real `confer` binary on an ephemeral port
//! against a temporary data directory, as an operator would, and speaks HTTP
//! to it. Readiness is the "listening on" line, never a sleep.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

pub const BOOTSTRAP_KEY: &str = "test-bootstrap-key-0123456789abcdef";
pub const JWT_SECRET: &str = "test-jwt-secret-fedcba9876543210";

/// `tests/peers/`, where `tests/peers/install` installed the real
/// third-party peers the tests run under Node (`package`: one of them).
pub fn peers_dir(package: &str) -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers");
    assert!(
        dir.join("node_modules").join(package).exists(),
        "run `tests/peers/install` first (the README's test command does)"
    );
    dir
}

/// Options of one server start.
#[derive(Clone)]
pub struct Options {
    pub bootstrap_key: Option<String>,
    pub jwt_secret: Option<String>,
    pub env: Vec<(String, String)>,
    pub args: Vec<String>,
    /// A program the binary runs under (`valgrind --tool=callgrind`), its
    /// arguments first; `None`: the binary itself.
    pub wrapper: Option<Vec<String>>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            bootstrap_key: Some(BOOTSTRAP_KEY.into()),
            jwt_secret: Some(JWT_SECRET.into()),
            env: Vec::new(),
            args: Vec::new(),
            wrapper: None,
        }
    }
}

impl Options {
    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Runs the binary under `program` with `args` before it.
    pub fn wrapped(mut self, program: &str, args: &[String]) -> Self {
        let mut words = vec![program.to_owned()];
        words.extend_from_slice(args);
        self.wrapper = Some(words);
        self
    }
}

/// A running server process.
pub struct Server {
    child: Child,
    pub base: String,
    pub stdout: Arc<Mutex<Vec<String>>>,
    pub stderr: Arc<Mutex<String>>,
    /// The thread copying stderr; it ends when the process closed the pipe.
    stderr_reader: Option<std::thread::JoinHandle<()>>,
    data: Arc<tempfile::TempDir>,
    options: Options,
    client: reqwest::Client,
}

/// A started child: the process, its stdout lines as they come, all stdout
/// lines so far, and all stderr so far.
struct Spawned {
    child: Child,
    lines: Receiver<String>,
    stdout: Arc<Mutex<Vec<String>>>,
    stderr: Arc<Mutex<String>>,
    stderr_reader: std::thread::JoinHandle<()>,
}

fn spawn(data_dir: &Path, options: &Options) -> Spawned {
    let binary = env!("CARGO_BIN_EXE_confer");
    let mut command = match &options.wrapper {
        Some(words) => {
            let mut command = Command::new(&words[0]);
            command.args(&words[1..]).arg(binary);
            command
        }
        None => Command::new(binary),
    };
    command
        .arg("serve")
        .args(&options.args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("CONFER_BIND", "127.0.0.1:0")
        .env("CONFER_DATA_DIR", data_dir)
        // Inside the data directory, so that it goes with it; the computer
        // tests name a directory the sandbox's user can reach.
        .env("CONFER_SANDBOX_DIR", Path::new(data_dir).join("sandboxes"))
        // No internet here: the MCP registry tests name their mock.
        .env("CONFER_MCP_REGISTRY_URL", "offline")
        .env("CONFER_LOG", "info")
        .env("CONFER_WORKERS", "2")
        // The tests' own pace is not what the rate limits are for; the
        // limits tests set their own.
        .env("CONFER_USER_RATE_LIMIT_RPS", "10000")
        .env("CONFER_USER_SEND_LIMIT_PER_MIN", "100000")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(key) = &options.bootstrap_key {
        command.env("CONFER_BOOTSTRAP_API_KEY", key);
    }
    if let Some(secret) = &options.jwt_secret {
        command.env("CONFER_JWT_SECRET", secret);
    }
    for (key, value) in &options.env {
        command.env(key, value);
    }
    let mut child = command.spawn().expect("start confer");
    let stdout = child.stdout.take().unwrap();
    let mut stderr_pipe = child.stderr.take().unwrap();
    let (lines_tx, lines_rx) = mpsc::channel();
    let stdout_lines = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&stdout_lines);
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            sink.lock().unwrap().push(line.clone());
            let _ = lines_tx.send(line);
        }
    });
    let stderr = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&stderr);
    let stderr_reader = std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = stderr_pipe.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });
    Spawned {
        child,
        lines: lines_rx,
        stdout: stdout_lines,
        stderr,
        stderr_reader,
    }
}

impl Server {
    /// Starts a server on a new temporary data directory.
    pub fn start() -> Self {
        Self::start_with(Options::default())
    }

    pub fn start_with(options: Options) -> Self {
        let data = Arc::new(tempfile::tempdir().expect("temp dir"));
        Self::start_in(data, options)
    }

    /// Starts a server on `data`, a data directory made beforehand.
    pub fn start_in(data: Arc<tempfile::TempDir>, options: Options) -> Self {
        let Spawned {
            mut child,
            lines,
            stdout,
            stderr,
            stderr_reader,
        } = spawn(data.path(), &options);
        let base = loop {
            // A wrapper (valgrind) slows the start many times over.
            let wait = if options.wrapper.is_some() { 300 } else { 30 };
            match lines.recv_timeout(Duration::from_secs(wait)) {
                Ok(line) => {
                    if let Some(address) = line.strip_prefix("confer listening on ") {
                        break address.trim().to_owned();
                    }
                }
                Err(_) => {
                    let _ = child.kill();
                    panic!("server did not start; stderr:\n{}", stderr.lock().unwrap());
                }
            }
        };
        Self {
            child,
            base,
            stdout,
            stderr,
            stderr_reader: Some(stderr_reader),
            data,
            options,
            // Pooled connections are not reused past 2 s idle: the server
            // closes them at 5 s (actix's keep-alive), and a request sent
            // on one as it closes fails with `IncompleteMessage` (seen once
            // in the role walk under the full suite).
            client: reqwest::Client::builder()
                .pool_idle_timeout(Duration::from_secs(2))
                .build()
                .expect("the test client builds"),
        }
    }

    /// SIGKILL; the data directory and options, to start again after
    /// changing the store offline.
    pub fn kill(mut self) -> (Arc<tempfile::TempDir>, Options) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        (Arc::clone(&self.data), self.options.clone())
    }

    /// SIGKILL, then a new process on the same data directory.
    pub fn kill_and_restart(mut self) -> Self {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        Self::start_in(Arc::clone(&self.data), self.options.clone())
    }

    /// SIGKILL, then a new process with other `options` on the same data directory.
    pub fn kill_and_restart_with(mut self, options: Options) -> Self {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        Self::start_in(Arc::clone(&self.data), options)
    }

    /// SIGTERM and wait for the exit; returns whether it exited successfully.
    pub fn terminate(&mut self) -> bool {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        for _ in 0..300 {
            if let Some(status) = self.child.try_wait().unwrap() {
                // Every line the process wrote is in `stderr` once its
                // reader saw the pipe close.
                if let Some(reader) = self.stderr_reader.take() {
                    let _ = reader.join();
                }
                return status.success();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("server did not stop within 15 s of SIGTERM");
    }

    /// Sends the process a signal (`INT`, `TERM`…) without waiting.
    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Waits (without blocking the test's runtime) for the process to exit;
    /// whether it exited successfully.
    pub async fn exited(&mut self, within: Duration) -> bool {
        let deadline = std::time::Instant::now() + within;
        while std::time::Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.success();
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("server did not exit within {within:?}");
    }

    /// A new process on the same data directory after `terminate`.
    pub fn restart(self) -> Self {
        Self::start_in(Arc::clone(&self.data), self.options.clone())
    }

    /// The server's process ID.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's data directory.
    pub fn data_dir(&self) -> &Path {
        self.data.path()
    }

    pub fn logs(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// The first log line containing `needle`, waiting up to 10 s for it:
    /// stderr is read by a thread, so a line the server wrote before it
    /// answered may reach the test after the answer did.
    pub async fn log_line(&self, needle: &str) -> String {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            let logs = self.logs();
            if let Some(line) = logs.lines().find(|l| l.contains(needle)) {
                return line.to_owned();
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no log line with {needle:?}: {logs}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// A client that authenticates with `token`.
    pub fn api(&self, token: &str) -> Api {
        Api {
            client: self.client.clone(),
            base: self.base.clone(),
            token: Some(token.to_owned()),
        }
    }

    /// A client with the bootstrap (admin, platform-admin) key.
    pub fn admin(&self) -> Api {
        self.api(BOOTSTRAP_KEY)
    }

    /// A client without credentials.
    pub fn anonymous(&self) -> Api {
        Api {
            client: self.client.clone(),
            base: self.base.clone(),
            token: None,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A response: status and JSON body (`Value::Null` when not JSON).
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub body: Value,
    pub content_type: String,
    pub etag: Option<String>,
}

impl Reply {
    /// Asserts the status and returns the body.
    #[track_caller]
    pub fn expect(self, status: u16) -> Value {
        assert_eq!(
            self.status.as_u16(),
            status,
            "unexpected status; body: {}",
            self.body
        );
        self.body
    }

    /// Asserts an error status and code, and that the body is the contract's.
    #[track_caller]
    pub fn expect_error(self, status: u16, code: &str) -> String {
        assert!(
            self.content_type.starts_with("application/json"),
            "{self:?}"
        );
        let body = self.expect(status);
        assert_eq!(body["error"], code, "{body}");
        body["detail"].as_str().unwrap_or_default().to_owned()
    }
}

/// An HTTP client of the API.
#[derive(Clone)]
pub struct Api {
    client: reqwest::Client,
    pub base: String,
    token: Option<String>,
}

impl Api {
    pub async fn request(&self, method: Method, path: &str, body: Option<Value>) -> Reply {
        self.request_with(method, path, body, &[]).await
    }

    /// [`Self::request`] with extra headers.
    pub async fn request_with(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
        headers: &[(&str, &str)],
    ) -> Reply {
        let mut request = self
            .client
            .request(method, format!("{}{}", self.base, path));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("request");
        Self::reply(response).await
    }

    pub async fn raw(&self, method: Method, path: &str, body: Vec<u8>) -> Reply {
        let mut request = self
            .client
            .request(method, format!("{}{}", self.base, path))
            .header("content-type", "application/json")
            .body(body);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        Self::reply(request.send().await.expect("request")).await
    }

    /// A `multipart/form-data` POST: text `fields`, then each of `files`
    /// as `file` parts `(file name, bytes)`.
    pub async fn multipart(
        &self,
        path: &str,
        fields: &[(&str, &str)],
        files: &[(&str, &[u8])],
    ) -> Reply {
        let parts: Vec<(&str, &str, &[u8])> = files
            .iter()
            .map(|(name, bytes)| ("file", *name, *bytes))
            .collect();
        self.multipart_parts(path, fields, &parts).await
    }

    /// A `multipart/form-data` POST: text `fields`, then `(part name, file
    /// name, bytes)` parts.
    pub async fn multipart_parts(
        &self,
        path: &str,
        fields: &[(&str, &str)],
        files: &[(&str, &str, &[u8])],
    ) -> Reply {
        self.multipart_as(Method::POST, path, fields, files).await
    }

    /// A `multipart/form-data` request of `method` (as `multipart_parts`).
    pub async fn multipart_as(
        &self,
        method: Method,
        path: &str,
        fields: &[(&str, &str)],
        files: &[(&str, &str, &[u8])],
    ) -> Reply {
        let boundary = "confer-test-boundary-7f3a";
        let mut body = Vec::new();
        for (name, value) in fields {
            body.extend_from_slice(
                format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n")
                    .as_bytes(),
            );
        }
        for (part, file_name, bytes) in files {
            body.extend_from_slice(
                format!(
                    "--{boundary}\r\nContent-Disposition: form-data; name=\"{part}\"; filename=\"{file_name}\"\r\n\
                     Content-Type: application/octet-stream\r\n\r\n"
                )
                .as_bytes(),
            );
            body.extend_from_slice(bytes);
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
        let mut request = self
            .client
            .request(method, format!("{}{}", self.base, path))
            .header(
                "content-type",
                format!("multipart/form-data; boundary={boundary}"),
            )
            .body(body);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        Self::reply(request.send().await.expect("request")).await
    }

    async fn reply(response: reqwest::Response) -> Reply {
        let status = response.status();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let etag = response
            .headers()
            .get("etag")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let bytes = response.bytes().await.expect("body");
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        Reply {
            status,
            body,
            content_type,
            etag,
        }
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.request(Method::GET, path, None).await
    }
    pub async fn post(&self, path: &str, body: Value) -> Reply {
        self.request(Method::POST, path, Some(body)).await
    }
    pub async fn put(&self, path: &str, body: Value) -> Reply {
        self.request(Method::PUT, path, Some(body)).await
    }
    pub async fn patch(&self, path: &str, body: Value) -> Reply {
        self.request(Method::PATCH, path, Some(body)).await
    }
    pub async fn delete(&self, path: &str) -> Reply {
        self.request(Method::DELETE, path, None).await
    }
    pub async fn delete_with(&self, path: &str, body: Value) -> Reply {
        self.request(Method::DELETE, path, Some(body)).await
    }

    /// Creates an agent and returns its ID.
    pub async fn agent(&self, name: &str) -> String {
        let body = self
            .post("/api/agents", json!({"name": name}))
            .await
            .expect(201);
        body["id"].as_str().unwrap().to_owned()
    }

    /// Creates an agent from a whole `POST /api/agents` body; its ID.
    pub async fn agent_with(&self, body: Value) -> String {
        let agent = self.post("/api/agents", body).await.expect(201);
        agent["id"].as_str().unwrap().to_owned()
    }

    /// A new API key of the caller's org with `role` (`admin`, `member`):
    /// its secret.
    pub async fn new_key(&self, role: &str) -> String {
        self.post("/api/keys", json!({"name": role, "role": role}))
            .await
            .expect(201)["key"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// The ID of the caller's first org.
    pub async fn org_id(&self) -> String {
        let orgs = self.get("/api/orgs").await.expect(200);
        orgs[0]["id"].as_str().unwrap().to_owned()
    }

    /// Creates a thread on `agent` and returns its ID.
    pub async fn thread(&self, agent: &str, extra: Value) -> String {
        let mut body = json!({"agentId": agent});
        if let Value::Object(extra) = extra {
            body.as_object_mut().unwrap().extend(extra);
        }
        let thread = self.post("/api/threads", body).await.expect(200);
        thread["id"].as_str().unwrap().to_owned()
    }
}

/// `confer check --url` against a running server: whether it passed, and
/// what it printed (both streams).
pub fn confer_check(base: &str) -> (bool, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_confer"))
        .args(["check", "--url", base])
        .env_clear()
        .env("CONFER_ADMIN_KEY", BOOTSTRAP_KEY)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), said)
}

/// A signed HS256 JWT for tests.
pub fn jwt(claims: Value) -> String {
    jsonwebtoken::encode(
        &jsonwebtoken::Header::default(),
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(JWT_SECRET.as_bytes()),
    )
    .unwrap()
}

/// `exp` this many seconds from now.
pub fn exp_in(seconds: i64) -> i64 {
    chrono::Utc::now().timestamp() + seconds
}

/// One SSE frame as a client parses it.
#[derive(Debug, Clone)]
pub struct Frame {
    /// `T.N`: the turn's number and the frame's index in it.
    pub id: Option<String>,
    pub event: String,
    pub data: Value,
}

/// An open SSE response, read frame by frame.
pub struct EventStream {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    response: reqwest::Response,
    buffer: String,
}

impl EventStream {
    /// The stream of a response.
    pub fn of(response: reqwest::Response) -> Self {
        Self {
            status: response.status(),
            headers: response.headers().clone(),
            response,
            buffer: String::new(),
        }
    }

    /// The next frame (comments skipped); `None` at the end of the stream.
    pub async fn next(&mut self) -> Option<Frame> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut frame = Frame {
                    id: None,
                    event: String::new(),
                    data: Value::Null,
                };
                let mut has_data = false;
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("id: ") {
                        frame.id = Some(v.to_owned());
                    } else if let Some(v) = line.strip_prefix("event: ") {
                        frame.event = v.to_owned();
                    } else if let Some(v) = line.strip_prefix("data: ") {
                        frame.data = serde_json::from_str(v).expect("frame data is JSON");
                        has_data = true;
                    }
                }
                if has_data {
                    return Some(frame);
                }
                continue;
            }
            let chunk = self.response.chunk().await.ok()??;
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }

    /// The next frame, failing the test after `wait`.
    pub async fn next_within(&mut self, wait: Duration) -> Option<Frame> {
        tokio::time::timeout(wait, self.next())
            .await
            .expect("a frame in time")
    }

    /// The raw text of the body read so far and not yet parsed.
    pub async fn raw_chunk(&mut self) -> Option<String> {
        let chunk = self.response.chunk().await.ok()??;
        Some(String::from_utf8_lossy(&chunk).into_owned())
    }

    /// Every remaining frame.
    pub async fn collect(mut self) -> Vec<Frame> {
        let mut frames = Vec::new();
        while let Some(frame) = self.next().await {
            frames.push(frame);
        }
        frames
    }
}

impl Api {
    /// Opens the SSE answer of a send (the status is checked by the caller).
    pub async fn open_stream(&self, thread: &str, body: Value) -> EventStream {
        self.open_send(thread, None, body).await
    }

    /// Opens the SSE answer of a send with an `Idempotency-Key`.
    pub async fn open_keyed(&self, thread: &str, key: &str, body: Value) -> EventStream {
        self.open_send(thread, Some(key), body).await
    }

    async fn open_send(&self, thread: &str, key: Option<&str>, body: Value) -> EventStream {
        let mut request = self
            .client
            .post(format!("{}/api/threads/{thread}/messages", self.base))
            .json(&body);
        if let Some(key) = key {
            request = request.header("idempotency-key", key);
        }
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        EventStream::of(request.send().await.expect("send"))
    }

    /// Opens an SSE `GET path` (the status is checked by the caller).
    pub async fn open_get(&self, path: &str) -> EventStream {
        let mut request = self.client.get(format!("{}{path}", self.base));
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        EventStream::of(request.send().await.expect("open"))
    }

    /// Opens `GET /api/threads/{thread}/stream{query}`, with `Last-Event-ID`
    /// when given (the status is checked by the caller).
    pub async fn open_watch(&self, thread: &str, query: &str, last: Option<&str>) -> EventStream {
        let mut request = self
            .client
            .get(format!("{}/api/threads/{thread}/stream{query}", self.base));
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        if let Some(last) = last {
            request = request.header("last-event-id", last);
        }
        EventStream::of(request.send().await.expect("watch"))
    }

    /// A keyed send's every frame (status 200 asserted).
    pub async fn say_keyed(&self, thread: &str, key: &str, body: Value) -> Vec<Frame> {
        let stream = self.open_keyed(thread, key, body).await;
        assert_eq!(stream.status, 200);
        stream.collect().await
    }

    /// Sends `content` and returns every frame of the answer.
    pub async fn say(&self, thread: &str, body: Value) -> Vec<Frame> {
        let stream = self.open_stream(thread, body).await;
        assert_eq!(stream.status, 200);
        stream.collect().await
    }

    /// The thread's listed history.
    pub async fn history(&self, thread: &str) -> Vec<Value> {
        let page = self
            .get(&format!("/api/threads/{thread}/messages?limit=200"))
            .await
            .expect(200);
        page["messages"].as_array().unwrap().clone()
    }
}

/// The data of every `name` event of a stream, in order.
pub fn events_of<'a>(frames: &'a [Frame], name: &str) -> Vec<&'a Value> {
    frames
        .iter()
        .filter(|f| f.event == name)
        .map(|f| &f.data)
        .collect()
}

/// The `done` frame of an answer (asserting there is exactly one, last).
#[track_caller]
pub fn done_of(frames: &[Frame]) -> Value {
    let dones = frames.iter().filter(|f| f.event == "done").count();
    assert_eq!(dones, 1, "exactly one done: {frames:?}");
    let last = frames.last().unwrap();
    assert_eq!(last.event, "done", "done is last: {frames:?}");
    last.data.clone()
}

/// The `error` frame's data of an answer (asserting there is one, before `done`).
#[track_caller]
pub fn error_of(frames: &[Frame]) -> Value {
    let at = frames
        .iter()
        .position(|f| f.event == "error")
        .unwrap_or_else(|| panic!("no error event: {frames:?}"));
    assert_eq!(
        frames[at + 1].event,
        "done",
        "error is followed by done: {frames:?}"
    );
    frames[at].data.clone()
}

/// A KiB figure of `/proc/{pid}/status` (`VmRSS`, `VmHWM`: the peak).
pub fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// Polls `check` every 10 ms until it yields a value; fails with `what` after
/// `within`. A readiness check for things that happen in the background.
pub async fn eventually<T>(
    within: Duration,
    what: &str,
    mut check: impl AsyncFnMut() -> Option<T>,
) -> T {
    let deadline = std::time::Instant::now() + within;
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "not within {within:?}: {what}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Starts a Python peer of `tests/peers` that prints its port first (the
/// channels' vendors, the MCP registry): the child and the port.
pub fn python_peer(script: &str) -> (std::process::Child, u16) {
    let peers = peers_dir("playwright-core");
    let mut child = Command::new(peers.join(".venv/bin/python"))
        .arg(peers.join(script))
        .stdout(Stdio::piped())
        .spawn()
        .expect("python runs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("the peer prints its port");
    let port = line.trim().parse().expect("a port");
    (child, port)
}
