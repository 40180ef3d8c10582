//! A running local sandbox: requests written to the helper's standard
//! input, replies read by a task of its own and handed to their waiters
//! by id. Dropping it kills bwrap's process group, and with it every
//! process of the sandbox.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::oneshot;

use crate::computer::protocol::{Envelope, MAX_MESSAGE, Reply, Request, write_message};
use crate::computer::runtime::{ExecSpec, OutputSender, RunningSandbox, RuntimeFuture};
use crate::outbound::egress::EgressProxy;

/// Reads one reply; `None` when the helper's output ended.
pub(super) async fn read_envelope(out: &mut ChildStdout) -> std::io::Result<Option<Envelope>> {
    let mut length = [0u8; 4];
    match out.read_exact(&mut length).await {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let length = u32::from_be_bytes(length) as usize;
    if length > MAX_MESSAGE {
        return Err(std::io::Error::other("a reply over 4 MiB"));
    }
    let mut body = vec![0u8; length];
    out.read_exact(&mut body).await?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(std::io::Error::other)
}

/// Who waits for a request's reply, and where its streamed output goes.
struct Waiter {
    reply: oneshot::Sender<Reply>,
    output: Option<OutputSender>,
}

/// The replies awaited, by request id (at most the one operation and a
/// signal: the lifecycle runs one operation at a time).
type Pending = Arc<Mutex<HashMap<u64, Waiter>>>;

/// A running local sandbox.
pub struct LocalSandbox {
    child: Mutex<Child>,
    stdin: tokio::sync::Mutex<ChildStdin>,
    pending: Pending,
    next: AtomicU64,
    alive: Arc<AtomicBool>,
    /// The allow-list's egress proxy, whose socket is bound in at
    /// `/.confer/egress.sock` (none: loopback only).
    egress: Option<EgressProxy>,
}

/// Where a command finds the sandbox's relay to the egress proxy.
const PROXY: &str = "http://127.0.0.1:3128";

impl LocalSandbox {
    pub(super) fn new(
        child: Child,
        stdin: ChildStdin,
        mut stdout: ChildStdout,
        egress: Option<EgressProxy>,
    ) -> Self {
        let pending: Pending = Arc::default();
        let alive = Arc::new(AtomicBool::new(true));
        let (waiting, running) = (pending.clone(), alive.clone());
        tokio::spawn(async move {
            while let Ok(Some(envelope)) = read_envelope(&mut stdout).await {
                let mut waiting = waiting.lock().unwrap_or_else(|p| p.into_inner());
                if let Reply::Output { stream, delta } = envelope.reply {
                    let output = waiting.get(&envelope.id).and_then(|w| w.output.as_ref());
                    if let Some(output) = output {
                        // A reader that fell behind loses pieces, never
                        // the turn's pace.
                        let _ = output.try_send((stream, delta));
                    }
                    continue;
                }
                if let Some(waiter) = waiting.remove(&envelope.id) {
                    let _ = waiter.reply.send(envelope.reply);
                }
            }
            running.store(false, Ordering::Release);
            // Whoever still waits hears that the sandbox ended.
            waiting.lock().unwrap_or_else(|p| p.into_inner()).clear();
        });
        Self {
            child: Mutex::new(child),
            stdin: tokio::sync::Mutex::new(stdin),
            pending,
            next: AtomicU64::new(1),
            alive,
            egress,
        }
    }

    async fn ask(
        &self,
        output: Option<OutputSender>,
        request: impl FnOnce(u64) -> Request,
    ) -> Reply {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (sender, answer) = oneshot::channel();
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(
                id,
                Waiter {
                    reply: sender,
                    output,
                },
            );
        let mut bytes = Vec::new();
        let sent = match write_message(&mut bytes, &request(id)) {
            Ok(()) => self.stdin.lock().await.write_all(&bytes).await,
            Err(e) => Err(e),
        };
        if let Err(error) = sent {
            self.pending
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&id);
            return Reply::Error {
                message: format!("the sandbox did not take the request: {error}"),
            };
        }
        // The signal sent when the caller gives up (the turn was stopped)
        // is the only cleanup a running command needs.
        let mut guard = SignalOnDrop {
            sandbox: self,
            target: Some(id),
        };
        let reply = answer.await.unwrap_or(Reply::Error {
            message: "the sandbox stopped".into(),
        });
        guard.target = None;
        reply
    }

    #[allow(unsafe_code)]
    pub(super) fn kill(&self) {
        let mut child = self.child.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(pid) = child.id().and_then(|id| libc::pid_t::try_from(id).ok()) {
            // SAFETY: `kill` takes plain integers; bwrap leads its own
            // process group (`process_group(0)`).
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = child.start_kill();
        self.alive.store(false, Ordering::Release);
    }
}

/// Kills a command whose caller stopped waiting for it.
struct SignalOnDrop<'a> {
    sandbox: &'a LocalSandbox,
    target: Option<u64>,
}

impl Drop for SignalOnDrop<'_> {
    fn drop(&mut self) {
        let Some(target) = self.target else {
            return;
        };
        let id = self.sandbox.next.fetch_add(1, Ordering::Relaxed);
        let mut bytes = Vec::new();
        if write_message(&mut bytes, &Request::Signal { id, target }).is_ok()
            && let Ok(mut stdin) = self.sandbox.stdin.try_lock()
        {
            // Best effort, without waiting: a full pipe means the helper
            // is gone or stuck, and stopping the sandbox ends both.
            let _ = futures_util::FutureExt::now_or_never(stdin.write_all(&bytes));
        }
    }
}

impl Drop for LocalSandbox {
    fn drop(&mut self) {
        self.kill();
    }
}

impl RunningSandbox for LocalSandbox {
    fn exec(&self, mut spec: ExecSpec) -> RuntimeFuture<'_, Reply> {
        let stream = spec.output.is_some();
        if self.egress.is_some() {
            for name in ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"] {
                spec.env.push((name.to_owned(), PROXY.to_owned()));
            }
        }
        Box::pin(self.ask(spec.output, move |id| Request::Exec {
            id,
            command: spec.command,
            cwd: spec.cwd,
            timeout_ms: u64::try_from(spec.timeout.as_millis()).unwrap_or(u64::MAX),
            env: spec.env,
            limits: spec.limits,
            keep: spec.keep,
            stream,
        }))
    }

    fn read_file(&self, path: String) -> RuntimeFuture<'_, Reply> {
        Box::pin(self.ask(None, move |id| Request::Read { id, path }))
    }

    fn write_file(&self, path: String, content: String) -> RuntimeFuture<'_, Reply> {
        Box::pin(self.ask(None, move |id| Request::Write { id, path, content }))
    }

    fn append_file(
        &self,
        path: String,
        bytes: Vec<u8>,
        truncate: bool,
    ) -> RuntimeFuture<'_, Reply> {
        use base64::Engine as _;
        let data = base64::engine::general_purpose::STANDARD.encode(bytes);
        Box::pin(self.ask(None, move |id| Request::Append {
            id,
            path,
            data,
            truncate,
        }))
    }

    fn is_alive(&self) -> bool {
        self.alive.load(Ordering::Acquire)
    }
}
