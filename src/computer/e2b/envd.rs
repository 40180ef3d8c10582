//! A running e2b sandbox, worked in through envd: commands through
//! `process.Process/Start` (a Connect server stream of `start`, `data` and
//! `end` events; `SendSignal` SIGKILL on a timeout) and files through
//! `/files`. Requests name the sandbox and envd's port in headers and
//! carry its access token, which lives only in this value.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use futures_util::StreamExt;
use secrecy::{ExposeSecret, SecretString};
use serde_json::{Value, json};

use super::connect::{Decoder, Frame, envelope};
use super::{CALL_WITHIN, E2bApi};
use crate::computer::hosted::{self, HostedSandbox, multipart, resolve};
use crate::computer::output::HeadTail;
use crate::computer::runtime::{ExecSpec, Reply, RunningSandbox, RuntimeFuture, RuntimeKind};

/// envd's port, named to e2b's router in a header.
const ENVD_PORT: &str = "49983";
/// The user commands and files belong to.
const USER: &str = "user";

/// A running e2b sandbox.
pub struct E2bSandbox {
    api: Arc<E2bApi>,
    id: String,
    token: SecretString,
    /// The sandbox's time to live, renewed before each command.
    ttl_secs: u64,
    alive: AtomicBool,
}

/// envd's files endpoint for `path`, as the sandbox's user.
fn files_path(path: &str) -> String {
    let query = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("path", path)
        .append_pair("username", USER)
        .finish();
    format!("/files?{query}")
}

impl E2bSandbox {
    pub(super) fn new(api: Arc<E2bApi>, id: String, token: SecretString, ttl_secs: u64) -> Self {
        Self {
            api,
            id,
            token,
            ttl_secs,
            alive: AtomicBool::new(true),
        }
    }

    /// A request to envd at `path`.
    fn envd(&self, method: reqwest::Method, path: &str) -> Result<reqwest::RequestBuilder, String> {
        let url = format!(
            "{}{path}",
            self.api.settings.sandbox_url.trim_end_matches('/')
        );
        Ok(self
            .api
            .outbound
            .request(method, &url)
            .map_err(|e| e.to_string())?
            .header("X-Access-Token", self.token.expose_secret())
            .header("E2b-Sandbox-Id", &self.id)
            .header("E2b-Sandbox-Port", ENVD_PORT)
            .header(
                reqwest::header::AUTHORIZATION,
                format!("Basic {}", STANDARD.encode(format!("{USER}:"))),
            ))
    }

    /// `path` in the sandbox: relative ones are under the workspace.
    fn path(path: &str) -> String {
        resolve(path, RuntimeKind::E2b.workspace())
    }

    /// A lost sandbox (e2b answers 404 or 502 for it) is started again by
    /// the lifecycle's next call.
    fn note(&self, status: u16) {
        if matches!(status, 404 | 502) {
            self.alive.store(false, Ordering::Release);
        }
    }

    /// Pushes the sandbox's end `ttl_secs` away (a paused-by-timeout
    /// sandbox would otherwise end under a long session).
    async fn renew(&self) {
        let renewed = self
            .api
            .call(
                reqwest::Method::POST,
                &format!("/sandboxes/{}/timeout", self.id),
                Some(json!({"timeout": self.ttl_secs})),
                CALL_WITHIN,
            )
            .await;
        if let Ok(answer) = &renewed {
            self.note(answer.status);
        }
    }

    /// Kills the command `pid` (its timeout passed).
    async fn kill(&self, pid: u64) {
        let Ok(request) = self.envd(reqwest::Method::POST, "/process.Process/SendSignal") else {
            return;
        };
        let body = json!({"process": {"pid": pid}, "signal": "SIGNAL_SIGKILL"});
        let _ = self
            .api
            .outbound
            .send(
                request
                    .timeout(CALL_WITHIN)
                    .header("Connect-Protocol-Version", "1")
                    .json(&body),
            )
            .await;
    }

    /// One command, start to end.
    async fn run(&self, spec: ExecSpec) -> Reply {
        let began = Instant::now();
        let cwd = spec
            .cwd
            .as_deref()
            .map_or_else(|| RuntimeKind::E2b.workspace().to_owned(), Self::path);
        let envs: serde_json::Map<String, Value> = spec
            .env
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        let body = json!({"process": {
            "cmd": "/bin/bash", "args": ["-c", spec.command], "envs": envs, "cwd": cwd,
        }});
        let request = match self.envd(reqwest::Method::POST, "/process.Process/Start") {
            Ok(request) => request,
            Err(message) => return Reply::Error { message },
        };
        let request = request
            .timeout(spec.timeout + Duration::from_secs(10))
            .header(reqwest::header::CONTENT_TYPE, "application/connect+json")
            .header("Connect-Protocol-Version", "1")
            .body(envelope(body.to_string().as_bytes()));
        let response = match self.api.outbound.send(request).await {
            Ok(response) => response,
            Err(error) => {
                return Reply::Error {
                    message: format!("e2b: {error}"),
                };
            }
        };
        let status = response.status().as_u16();
        if status != 200 {
            self.note(status);
            return Reply::Error {
                message: format!("e2b could not start the command: http {status}"),
            };
        }
        let mut stream = response.bytes_stream();
        let mut decoder = Decoder::default();
        let mut out = [HeadTail::new(spec.keep), HeadTail::new(spec.keep)];
        let mut pid = None;
        let deadline = tokio::time::Instant::now() + spec.timeout;
        loop {
            let chunk = match tokio::time::timeout_at(deadline, stream.next()).await {
                Err(_) => {
                    if let Some(pid) = pid {
                        self.kill(pid).await;
                    }
                    let [stdout, stderr] = out.map(HeadTail::finish);
                    return Reply::Exec {
                        exit_code: None,
                        signal: Some(9),
                        timed_out: true,
                        process_limit: false,
                        stdout,
                        stderr,
                        duration_ms: began.elapsed().as_millis() as u64,
                    };
                }
                Ok(Some(Ok(chunk))) => chunk,
                Ok(Some(Err(_)) | None) => {
                    return Reply::Error {
                        message: "e2b: the command's stream ended before the command".into(),
                    };
                }
            };
            let frames = match decoder.push(&chunk) {
                Ok(frames) => frames,
                Err(message) => return Reply::Error { message },
            };
            for frame in frames {
                let message = match frame {
                    Frame::Message(message) => message,
                    Frame::End(end) => {
                        let end: Value = serde_json::from_slice(&end).unwrap_or(Value::Null);
                        let code = end["error"]["code"].as_str().unwrap_or("unknown");
                        return Reply::Error {
                            message: format!("e2b: the command failed ({code})"),
                        };
                    }
                };
                let Ok(message) = serde_json::from_slice::<Value>(&message) else {
                    continue;
                };
                let event = &message["event"];
                if let Some(started) = event["start"]["pid"].as_u64() {
                    pid = Some(started);
                } else if let Some(data) = event.get("data") {
                    for (index, stream) in ["stdout", "stderr"].into_iter().enumerate() {
                        let Some(bytes) =
                            data[stream].as_str().and_then(|b| STANDARD.decode(b).ok())
                        else {
                            continue;
                        };
                        out[index].push(&bytes);
                        if let Some(sender) = &spec.output {
                            let delta = String::from_utf8_lossy(&bytes).into_owned();
                            let _ = sender.try_send((stream.to_owned(), delta));
                        }
                    }
                } else if let Some(end) = event.get("end") {
                    // proto3's JSON leaves out zero values: no `exitCode`
                    // is 0.
                    let code = end["exitCode"].as_i64().unwrap_or(0) as i32;
                    let exited = end["exited"].as_bool().unwrap_or(false);
                    let signal = match end["status"].as_str() {
                        Some("signal: killed") => Some(9),
                        Some("signal: terminated") => Some(15),
                        _ => None,
                    };
                    let [stdout, stderr] = out.map(HeadTail::finish);
                    return Reply::Exec {
                        exit_code: exited.then_some(code),
                        signal: (!exited).then_some(signal).flatten(),
                        timed_out: false,
                        process_limit: false,
                        stdout,
                        stderr,
                        duration_ms: began.elapsed().as_millis() as u64,
                    };
                }
            }
        }
    }

    /// Asks envd for file `full`.
    async fn fetch(&self, full: &str) -> Result<reqwest::Response, String> {
        let request = self
            .envd(reqwest::Method::GET, &files_path(full))?
            .timeout(CALL_WITHIN);
        self.api
            .outbound
            .send(request)
            .await
            .map_err(|error| format!("e2b: {error}"))
    }

    /// Writes `bytes` to `path` (envd's upload replaces the file).
    async fn upload(&self, path: &str, bytes: &[u8]) -> Reply {
        let full = Self::path(path);
        let (content_type, body) = multipart(&full, bytes);
        let request = match self.envd(reqwest::Method::POST, &files_path(&full)) {
            Ok(request) => request,
            Err(message) => return Reply::Error { message },
        };
        let request = request
            .timeout(CALL_WITHIN)
            .header(reqwest::header::CONTENT_TYPE, content_type)
            .body(body);
        match self.api.outbound.send(request).await {
            Ok(response) if response.status().is_success() => Reply::Done,
            Ok(response) => {
                let status = response.status().as_u16();
                self.note(status);
                Reply::Error {
                    message: format!("{path}: e2b answered http {status}"),
                }
            }
            Err(error) => Reply::Error {
                message: format!("e2b: {error}"),
            },
        }
    }
}

impl RunningSandbox for E2bSandbox {
    fn exec(&self, spec: ExecSpec) -> RuntimeFuture<'_, Reply> {
        Box::pin(async move {
            self.renew().await;
            self.run(spec).await
        })
    }

    fn read_file(&self, path: String) -> RuntimeFuture<'_, Reply> {
        Box::pin(hosted::read(self, path))
    }

    fn write_file(&self, path: String, content: String) -> RuntimeFuture<'_, Reply> {
        Box::pin(async move { self.upload(&path, content.as_bytes()).await })
    }

    fn append_file(
        &self,
        path: String,
        bytes: Vec<u8>,
        truncate: bool,
    ) -> RuntimeFuture<'_, Reply> {
        Box::pin(hosted::append(self, path, bytes, truncate))
    }

    fn is_alive(&self) -> bool {
        self.alive.load(Ordering::Acquire)
    }

    fn vendor_id(&self) -> Option<String> {
        Some(self.id.clone())
    }
}

impl HostedSandbox for E2bSandbox {
    const KIND: RuntimeKind = RuntimeKind::E2b;

    fn run(&self, spec: ExecSpec) -> impl Future<Output = Reply> + Send {
        E2bSandbox::run(self, spec)
    }

    fn write(&self, path: &str, bytes: &[u8]) -> impl Future<Output = Reply> + Send {
        self.upload(path, bytes)
    }

    fn download(
        &self,
        full: &str,
    ) -> impl Future<Output = Result<reqwest::Response, String>> + Send {
        self.fetch(full)
    }

    fn note(&self, status: u16) {
        E2bSandbox::note(self, status);
    }
}
