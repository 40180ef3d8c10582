//! In-process mock peers for the server under test: model vendors that replay
//! recorded streams byte for byte, and an HTTPS credential resolver. Raw TCP
//! (optionally TLS), so a test controls every byte, can cut a connection
//! mid-stream, and sees when the server closes its side.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::{self, pki_types};

/// One Chat Completions chunk as an SSE event.
pub fn openai_chunk(choices: Value, usage: Value) -> String {
    format!(
        "data: {}\n\n",
        serde_json::json!({"id": "chatcmpl-m", "object": "chat.completion.chunk",
            "created": 1760000000, "model": "gpt-4.1", "choices": choices, "usage": usage})
    )
}

/// An OpenAI Chat Completions stream answering `text`, reporting
/// `prompt_tokens` (the chunks of `tests/fixtures/openai_text.sse`).
pub fn openai_answer(text: &str, prompt_tokens: u64) -> String {
    let chunk = openai_chunk;
    [
        chunk(
            serde_json::json!([{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": null}]),
            Value::Null,
        ),
        chunk(
            serde_json::json!([{"index": 0, "delta": {}, "finish_reason": "stop"}]),
            Value::Null,
        ),
        chunk(
            serde_json::json!([]),
            serde_json::json!({"prompt_tokens": prompt_tokens, "completion_tokens": 5,
                "total_tokens": prompt_tokens + 5}),
        ),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat()
}

/// The SDK's compaction stream, its usage reporting `iterations`.
pub fn compaction_with_iterations() -> String {
    fixture("anthropic_compaction.sse").replace(
        r#""usage":{"output_tokens":8}"#,
        r#""usage":{"input_tokens":23,"output_tokens":8,"iterations":[
            {"type":"compaction","input_tokens":1800,"output_tokens":35,"cache_read_input_tokens":100},
            {"type":"message","input_tokens":23,"output_tokens":8}]}"#
            .replace(['\n', ' '], "")
            .as_str(),
    )
}

/// The compaction stream as the vendor sends it when it pauses: the block
/// only, stop reason `compaction`.
pub fn paused_compaction() -> String {
    let full = fixture("anthropic_compaction.sse");
    let cut = full
        .find("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1")
        .unwrap();
    format!(
        "{}event: message_delta\ndata: {}\n\nevent: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n",
        &full[..cut],
        serde_json::json!({"type": "message_delta", "delta": {"stop_reason": "compaction"}, "usage": {"output_tokens": 35}})
    )
}

/// The vendor's own compaction: an Anthropic request that asks for it
/// (`context_management`) with more input (bytes ÷ 4, counted after its
/// newest compaction block, which stands for what precedes it) than its
/// trigger is answered with the compaction stream, paused when it asks so.
fn vendor_compaction(request: &Recorded) -> Option<Reply> {
    if !request.path.ends_with("/v1/messages") {
        return None;
    }
    let edits = request.body["context_management"]["edits"].as_array()?;
    let edit = edits.iter().find(|e| e["type"] == "compact_20260112")?;
    let trigger = edit["trigger"]["value"].as_u64()?;
    let since_block = request
        .raw_body
        .rfind("\"type\":\"compaction\"")
        .map_or(request.raw_body.as_str(), |at| &request.raw_body[at..]);
    if (since_block.len() / 4) as u64 <= trigger {
        return None;
    }
    Some(Reply::stream(if edit["pause_after_compaction"] == true {
        paused_compaction()
    } else {
        compaction_with_iterations()
    }))
}

/// A mock of `vendor` (`"ANTHROPIC"` or `"OPENAI"`) under `path_prefix`,
/// and a server that calls it with a platform key.
pub async fn server_on_mock(vendor: &str, path_prefix: &str) -> (Mock, crate::common::Server) {
    let mock = Mock::start(path_prefix).await;
    let server = crate::common::Server::start_with(
        crate::common::Options::default()
            .env(&format!("{vendor}_BASE_URL"), &mock.base)
            .env(&format!("{vendor}_API_KEY"), "sk-platform"),
    );
    (mock, server)
}

/// A recorded stream from `tests/fixtures/`.
pub fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// What the mock answers one request with.
#[derive(Clone, Debug)]
pub enum Reply {
    /// 200 `text/event-stream`: the body's SSE events, one write each,
    /// `gap` apart; then the connection closes (a cut, if the body is cut).
    Stream { body: String, gap: Duration },
    /// Any status with a JSON body and extra headers.
    Status {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// Wait, then answer.
    After(Duration, Box<Reply>),
    /// Made from the request, as a model answers what it was sent.
    Computed(Responder),
}

/// A reply made from the request it answers.
#[derive(Clone)]
pub struct Responder(pub Arc<dyn Fn(&Recorded) -> Reply + Send + Sync>);

impl std::fmt::Debug for Responder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Responder")
    }
}

impl Reply {
    pub fn stream(body: String) -> Self {
        Self::Stream {
            body,
            gap: Duration::ZERO,
        }
    }
    /// A stream whose events are `gap` apart.
    pub fn paced(body: String, gap: Duration) -> Self {
        Self::Stream { body, gap }
    }
    pub fn json(status: u16, body: Value) -> Self {
        Self::Status {
            status,
            headers: Vec::new(),
            body: body.to_string(),
        }
    }
    /// A reply `answer` makes from the request.
    pub fn computed(answer: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> Self {
        Self::Computed(Responder(Arc::new(answer)))
    }
}

/// An OpenAI Chat Completions stream that calls `name` with `arguments`
/// (as `tests/fixtures/openai_tool_calls.sse` does).
pub fn openai_tool_call(id: &str, name: &str, arguments: &Value) -> String {
    openai_tool_call_raw(id, name, &arguments.to_string())
}

/// An OpenAI stream that calls `name` with `arguments` as the model wrote
/// them (JSON or not).
pub fn openai_tool_call_raw(id: &str, name: &str, arguments: &str) -> String {
    let chunk = openai_chunk;
    [
        chunk(
            serde_json::json!([{"index": 0, "delta": {"role": "assistant", "content": null,
                "tool_calls": [{"index": 0, "id": id, "type": "function",
                    "function": {"name": name, "arguments": arguments}}]},
                "finish_reason": null}]),
            Value::Null,
        ),
        chunk(
            serde_json::json!([{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]),
            Value::Null,
        ),
        chunk(
            serde_json::json!([]),
            serde_json::json!({"prompt_tokens": 30, "completion_tokens": 10, "total_tokens": 40}),
        ),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat()
}

/// A request as the mock received it.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub path: String,
    /// Lower-case names.
    pub headers: Vec<(String, String)>,
    pub raw_body: String,
    pub body: Value,
    /// The body as received (a protobuf one is not text).
    pub bytes: Vec<u8>,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Default)]
struct Shared {
    script: VecDeque<Reply>,
    /// The context window: a request estimated over it (body bytes ÷ 4) is
    /// refused for its length, as the vendor does.
    window: Option<usize>,
    requests: Vec<Recorded>,
    /// When the server under test closed a connection the mock was streaming on.
    closed: Vec<Instant>,
    /// The answer when the script is empty (a peer that answers forever).
    otherwise: Option<Reply>,
}

/// A mock HTTP(S) peer.
#[derive(Clone)]
pub struct Mock {
    pub base: String,
    shared: Arc<Mutex<Shared>>,
}

impl Mock {
    /// A plain-HTTP mock on 127.0.0.1; `path_prefix` is part of `base`.
    pub async fn start(path_prefix: &str) -> Self {
        Self::start_inner(path_prefix, None).await
    }

    /// An HTTPS mock whose certificate (for 127.0.0.1 and localhost) is signed
    /// by `ca`.
    pub async fn start_tls(path_prefix: &str, ca: &TestCa) -> Self {
        Self::start_inner(path_prefix, Some(ca.acceptor())).await
    }

    async fn start_inner(path_prefix: &str, tls: Option<TlsAcceptor>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let scheme = if tls.is_some() { "https" } else { "http" };
        let mock = Self {
            base: format!("{scheme}://127.0.0.1:{port}{path_prefix}"),
            shared: Arc::new(Mutex::new(Shared::default())),
        };
        let shared = Arc::clone(&mock.shared);
        tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let _ = tcp.set_nodelay(true);
                let shared = Arc::clone(&shared);
                let tls = tls.clone();
                tokio::spawn(async move {
                    match tls {
                        Some(tls) => {
                            if let Ok(stream) = tls.accept(tcp).await {
                                serve(stream, shared).await;
                            }
                        }
                        None => serve(tcp, shared).await,
                    }
                });
            }
        });
        mock
    }

    /// Queues the answers of the next requests, in order.
    pub fn push(&self, reply: Reply) -> &Self {
        self.shared.lock().unwrap().script.push_back(reply);
        self
    }

    /// Answers every request the script does not with `reply`.
    pub fn otherwise(&self, reply: Reply) -> &Self {
        self.shared.lock().unwrap().otherwise = Some(reply);
        self
    }

    /// Refuses, the way the vendor does, every request whose body is over
    /// `tokens` (estimated as bytes ÷ 4).
    pub fn context_window(&self, tokens: usize) -> &Self {
        self.shared.lock().unwrap().window = Some(tokens);
        self
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.lock().unwrap().requests.clone()
    }

    pub fn closed(&self) -> Vec<Instant> {
        self.shared.lock().unwrap().closed.clone()
    }
}

/// Reads one HTTP/1.1 request (headers and a Content-Length body).
async fn read_request<R: AsyncRead + Unpin>(reader: &mut R) -> Option<Recorded> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let header_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        let n = reader.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..header_end]).to_string();
    let mut lines = head.split("\r\n");
    let path = lines.next()?.split(' ').nth(1)?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buffer[header_end + 4..].to_vec();
    while body.len() < length {
        let n = reader.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    let raw_body = String::from_utf8_lossy(&body).to_string();
    let bytes = body;
    let body = serde_json::from_str(&raw_body).unwrap_or(Value::Null);
    Some(Recorded {
        path,
        headers,
        raw_body,
        body,
        bytes,
    })
}

/// The 400 a real vendor answers `request` with, if it would refuse it:
/// over the context `window`, each in its words (vendor-protocols.md);
/// Anthropic refuses tool blocks without tool definitions, OpenAI a tool
/// choice without tools.
fn vendor_refusal(request: &Recorded, window: Option<usize>) -> Option<Reply> {
    let body = &request.body;
    let tokens = request.raw_body.len() / 4;
    if let Some(window) = window.filter(|w| tokens > *w) {
        return Some(if request.path.ends_with("/v1/messages") {
            Reply::json(
                400,
                serde_json::json!({"type": "error", "error": {"type": "invalid_request_error",
                    "message": format!("prompt is too long: {tokens} tokens > {window} maximum")}}),
            )
        } else {
            Reply::json(
                400,
                serde_json::json!({"error": {"message": format!("This model's maximum context length is {window} tokens. However, your messages resulted in {tokens} tokens. Please reduce the length of the messages."),
                    "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}),
            )
        });
    }
    let has_tools = body["tools"].as_array().is_some_and(|t| !t.is_empty());
    if request.path.ends_with("/v1/messages") {
        let tool_blocks = body["messages"].as_array().into_iter().flatten().any(|m| {
            m["content"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|b| matches!(b["type"].as_str(), Some("tool_use" | "tool_result")))
        });
        if tool_blocks && !has_tools {
            return Some(Reply::json(
                400,
                serde_json::json!({"type": "error", "error": {"type": "invalid_request_error",
                    "message": "Requests which include `tool_use` or `tool_result` blocks must define tools."}}),
            ));
        }
    }
    if request.path.ends_with("/chat/completions") && !body["tool_choice"].is_null() && !has_tools {
        return Some(Reply::json(
            400,
            serde_json::json!({"error": {"type": "invalid_request_error",
                "message": "tool_choice is only allowed when tools are specified"}}),
        ));
    }
    None
}

async fn serve<S: AsyncRead + AsyncWrite + Unpin + Send + 'static>(
    stream: S,
    shared: Arc<Mutex<Shared>>,
) {
    let (mut reader, mut writer) = tokio::io::split(stream);
    let Some(request) = read_request(&mut reader).await else {
        return;
    };
    let reply = {
        let mut shared = shared.lock().unwrap();
        let refusal =
            vendor_refusal(&request, shared.window).or_else(|| vendor_compaction(&request));
        shared.requests.push(request);
        // A request the real vendor would refuse is refused, and one it
        // would compact is compacted, whatever the script says (the
        // scripted reply stays for the next request).
        match refusal {
            Some(refused) => Some(refused),
            None => shared
                .script
                .pop_front()
                .or_else(|| shared.otherwise.clone()),
        }
    };
    // Notice at once when the server under test hangs up.
    let watcher = {
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let mut byte = [0u8; 1];
            let _ = reader.read(&mut byte).await;
            shared.lock().unwrap().closed.push(Instant::now());
        })
    };
    let mut reply = reply.unwrap_or_else(|| {
        Reply::json(
            500,
            serde_json::json!({"error": {"message": "mock: no reply scripted"}}),
        )
    });
    loop {
        match reply {
            Reply::After(wait, next) => {
                tokio::time::sleep(wait).await;
                reply = *next;
            }
            Reply::Computed(Responder(answer)) => {
                let request = shared.lock().unwrap().requests.last().cloned();
                reply = match request {
                    Some(request) => answer(&request),
                    None => Reply::json(500, serde_json::json!({"error": "mock: no request"})),
                };
            }
            _ => break,
        }
    }
    match reply {
        Reply::Stream { body, gap } => {
            let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";
            if writer.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            for (i, event) in body.split_inclusive("\n\n").enumerate() {
                if i > 0 && !gap.is_zero() {
                    tokio::time::sleep(gap).await;
                }
                if writer.write_all(event.as_bytes()).await.is_err()
                    || writer.flush().await.is_err()
                {
                    return;
                }
            }
        }
        Reply::Status {
            status,
            headers,
            body,
        } => {
            // JSON unless the reply names its own type.
            let typed = headers
                .iter()
                .any(|(name, _)| name.eq_ignore_ascii_case("content-type"));
            let default_type = if typed {
                ""
            } else {
                "content-type: application/json\r\n"
            };
            let mut head = format!(
                "HTTP/1.1 {status} Mock\r\n{default_type}content-length: {}\r\nconnection: close\r\n",
                body.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            let _ = writer.write_all(head.as_bytes()).await;
            let _ = writer.write_all(body.as_bytes()).await;
        }
        Reply::After(..) | Reply::Computed(_) => {}
    }
    let _ = writer.shutdown().await;
    watcher.abort();
}

/// A throwaway certificate authority and a server certificate it signed.
pub struct TestCa {
    pub ca_pem: String,
    cert_der: pki_types::CertificateDer<'static>,
    key_der: Vec<u8>,
}

impl TestCa {
    pub fn new() -> Self {
        let ca_key = rcgen::KeyPair::generate().unwrap();
        let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "Confer test CA");
        let ca_cert = ca_params.self_signed(&ca_key).unwrap();
        let issuer = rcgen::Issuer::new(ca_params, ca_key);
        let key = rcgen::KeyPair::generate().unwrap();
        let params =
            rcgen::CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
                .unwrap();
        let cert = params.signed_by(&key, &issuer).unwrap();
        Self {
            ca_pem: ca_cert.pem(),
            cert_der: cert.der().clone(),
            key_der: key.serialize_der(),
        }
    }

    fn acceptor(&self) -> TlsAcceptor {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let key = pki_types::PrivateKeyDer::Pkcs8(self.key_der.clone().into());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![self.cert_der.clone()], key)
            .unwrap();
        TlsAcceptor::from(Arc::new(config))
    }

    /// Writes the CA certificate to a file for `CONFER_EXTRA_CA_CERT`.
    pub fn write_pem(&self, dir: &std::path::Path) -> String {
        let path = dir.join("test-ca.pem");
        std::fs::write(&path, &self.ca_pem).unwrap();
        path.display().to_string()
    }
}
