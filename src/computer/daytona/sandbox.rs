//! A running daytona sandbox, worked in through its toolbox: commands
//! through `process/execute` (answered when they end: stdout only, not
//! live) and files through `files/download` and `files/upload`.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::json;

use super::{CALL_WITHIN, DaytonaApi};
use crate::computer::hosted::{self, HostedSandbox, multipart, quote, resolve};
use crate::computer::output::HeadTail;
use crate::computer::protocol::StreamOutput;
use crate::computer::runtime::{ExecSpec, Reply, RunningSandbox, RuntimeFuture, RuntimeKind};

/// The exit status of `timeout` when the command outlived it (124), or
/// when it had to be killed after the grace (128 + 9).
const TIMED_OUT: [i64; 2] = [124, 137];

/// A running daytona sandbox.
pub struct DaytonaSandbox {
    api: Arc<DaytonaApi>,
    id: String,
    /// The toolbox's base URL, as daytona named it.
    toolbox: String,
    alive: AtomicBool,
}

impl DaytonaSandbox {
    pub(super) fn new(api: Arc<DaytonaApi>, id: String, toolbox: String) -> Self {
        Self {
            api,
            id,
            toolbox,
            alive: AtomicBool::new(true),
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}/{}{path}", self.toolbox, self.id)
    }

    fn path(path: &str) -> String {
        resolve(path, RuntimeKind::Daytona.workspace())
    }

    /// The toolbox's files endpoint `action` for `path`.
    fn files(&self, action: &str, path: &str) -> String {
        let query = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("path", path)
            .finish();
        self.url(&format!("/files/{action}?{query}"))
    }

    /// A lost sandbox is started again by the lifecycle's next call.
    fn note(&self, status: u16) {
        if matches!(status, 404 | 502) {
            self.alive.store(false, Ordering::Release);
        }
    }

    /// One command: its environment exported, then its text, sent in
    /// base64 under `timeout`.
    async fn run(&self, spec: ExecSpec) -> Reply {
        let began = Instant::now();
        let mut script: String = spec
            .env
            .iter()
            .map(|(k, v)| format!("export {k}={}\n", quote(v)))
            .collect();
        script.push_str(&spec.command);
        let secs = spec.timeout.as_secs().max(1);
        let command = format!(
            "timeout -k 5 {secs} bash -c \"$(echo {} | base64 -d)\"",
            STANDARD.encode(script)
        );
        let cwd = spec
            .cwd
            .as_deref()
            .map_or_else(|| RuntimeKind::Daytona.workspace().to_owned(), Self::path);
        let body = json!({"command": command, "cwd": cwd, "timeout": secs + 10});
        let answer = self
            .api
            .call_url(
                reqwest::Method::POST,
                &self.url("/process/execute"),
                |r| r.json(&body),
                Duration::from_secs(secs + 20),
            )
            .await;
        let answer = match answer {
            Ok(answer) => answer,
            Err(message) => {
                return Reply::Error {
                    message: format!("daytona: {message}"),
                };
            }
        };
        if answer.status != 200 {
            self.note(answer.status);
            return Reply::Error {
                message: format!("daytona could not run the command: http {}", answer.status),
            };
        }
        let code = answer.body["exitCode"].as_i64().unwrap_or(-1);
        let result = answer.body["result"].as_str().unwrap_or_default();
        if let Some(sender) = &spec.output
            && !result.is_empty()
        {
            let _ = sender.try_send(("stdout".to_owned(), result.to_owned()));
        }
        let mut stdout = HeadTail::new(spec.keep);
        stdout.push(result.as_bytes());
        let timed_out = TIMED_OUT.contains(&code) && began.elapsed().as_secs() >= secs;
        Reply::Exec {
            exit_code: (!timed_out).then_some(code as i32),
            signal: timed_out.then_some(9),
            timed_out,
            process_limit: false,
            stdout: stdout.finish(),
            stderr: StreamOutput::default(),
            duration_ms: began.elapsed().as_millis() as u64,
        }
    }

    /// Asks the toolbox for file `full`.
    async fn fetch(&self, full: &str) -> Result<reqwest::Response, String> {
        let request = self
            .api
            .outbound
            .request(reqwest::Method::GET, &self.files("download", full))
            .map_err(|e| e.to_string())?
            .timeout(CALL_WITHIN)
            .bearer_auth(secrecy::ExposeSecret::expose_secret(
                &self.api.settings.api_key,
            ));
        self.api
            .outbound
            .send(request)
            .await
            .map_err(|error| format!("daytona: {error}"))
    }

    /// Writes `bytes` to `path` (the upload replaces the file).
    async fn upload(&self, path: &str, bytes: &[u8]) -> Reply {
        let full = Self::path(path);
        let (content_type, body) = multipart(&full, bytes);
        let answer = self
            .api
            .call_url(
                reqwest::Method::POST,
                &self.files("upload", &full),
                |r| {
                    r.header(reqwest::header::CONTENT_TYPE, content_type)
                        .body(body)
                },
                CALL_WITHIN,
            )
            .await;
        match answer {
            Ok(answer) if (200..300).contains(&answer.status) => Reply::Done,
            Ok(answer) => {
                self.note(answer.status);
                Reply::Error {
                    message: format!("{path}: daytona answered http {}", answer.status),
                }
            }
            Err(message) => Reply::Error {
                message: format!("daytona: {message}"),
            },
        }
    }
}

impl RunningSandbox for DaytonaSandbox {
    fn exec(&self, spec: ExecSpec) -> RuntimeFuture<'_, Reply> {
        Box::pin(self.run(spec))
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

impl HostedSandbox for DaytonaSandbox {
    const KIND: RuntimeKind = RuntimeKind::Daytona;

    fn run(&self, spec: ExecSpec) -> impl Future<Output = Reply> + Send {
        DaytonaSandbox::run(self, spec)
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
        DaytonaSandbox::note(self, status);
    }
}
