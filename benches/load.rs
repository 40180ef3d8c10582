//! The concurrent-streams load generator: how many answers Confer streams at
//! once, what it adds to each token and to the first token, and what a stream
//! costs in memory, CPU and disk. See docs/performance.md.
//!
//! `cargo bench --bench load` runs the default set (paced at 100, 500 and
//! 1,000 streams, burst, idle with 2,000 streams, history) and prints a
//! markdown table; the JSON lands in `target/bench/load.json`. Flags (after
//! `--`): `--paced 100,500,1000,2000`, `--idle 10000`, `--recovery 1000000`,
//! `--only paced,burst,idle,history,recovery` (any of them), `--turns N`, `--tokens N`,
//! `--interval-ms N`, `--ramp-ms N` (streams start spread over this; 1000),
//! `--vendor openai|anthropic`, `--phases` (the server logs each turn's
//! phase timings, `confer::turn_timings`, and the paced rows break the time
//! to first token down by phase; off by default, as it adds a log line per turn).
//!
//! Everything runs on one machine: a pacing mock vendor (OpenAI or Anthropic
//! streaming format) that writes each token's send time into its text, the
//! release `confer` binary pointed at it, and this client. Every paced figure
//! is also measured with the same client talking to the mock directly, and
//! reported as a ratio against that direct path.

// A benchmark aborts on setup failure: there is nothing to measure then.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[path = "support/mod.rs"]
mod support;

const KEY: &str = "load-key-0123456789abcdef0123456789";

/// `--phases`: collect the server's per-turn phase timings.
static PHASES: AtomicBool = AtomicBool::new(false);

/// The phases of `confer::turn_timings`, in turn order.
const PHASE_FIELDS: [&str; 10] = confer_actors::TurnTimings::FIELDS;

fn now_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_micros() as u64
}

// ---- options -------------------------------------------------------------

#[derive(Clone, Debug)]
struct Options {
    paced: Vec<usize>,
    idle: usize,
    recovery: Option<usize>,
    only: Option<String>,
    turns: usize,
    tokens: usize,
    interval_ms: u64,
    ramp_ms: u64,
    vendor: String,
}

fn options() -> Options {
    let mut o = Options {
        paced: vec![100, 500, 1000],
        idle: 2000,
        recovery: None,
        only: None,
        turns: 3,
        tokens: 50,
        interval_ms: 20,
        ramp_ms: 1000,
        vendor: "openai".into(),
    };
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--paced" => o.paced = value.split(',').filter_map(|n| n.parse().ok()).collect(),
            "--idle" => o.idle = value.parse().unwrap(),
            "--recovery" => o.recovery = Some(value.parse().unwrap()),
            "--only" => o.only = Some(value),
            "--turns" => o.turns = value.parse().unwrap(),
            "--tokens" => o.tokens = value.parse().unwrap(),
            "--interval-ms" => o.interval_ms = value.parse().unwrap(),
            "--ramp-ms" => o.ramp_ms = value.parse().unwrap(),
            "--vendor" => o.vendor = value,
            "--phases" => {
                PHASES.store(true, Ordering::Relaxed);
                i += 1;
                continue;
            }
            _ => {
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    o
}

// ---- the pacing mock vendor ---------------------------------------------------

/// Serves `POST .../chat/completions` and `.../v1/messages`. The model name
/// says what to do: `paced:T:I` streams T tokens I ms apart, each token's
/// text being `{request received µs}:{sent µs} `; `hold` sends the headers
/// and nothing more until the client leaves.
async fn mock_vendor() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let _ = socket.set_nodelay(true);
            tokio::spawn(serve_vendor(socket));
        }
    });
    format!("http://{address}")
}

async fn read_request(socket: &mut TcpStream) -> Option<(String, Value)> {
    let (path, body) = support::read_http_request(socket).await?;
    Some((path, serde_json::from_slice(&body).ok()?))
}

fn vendor_frame(anthropic: bool, text: &str) -> String {
    if anthropic {
        let data = json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}});
        format!("event: content_block_delta\ndata: {data}\n\n")
    } else {
        let data =
            json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]});
        format!("data: {data}\n\n")
    }
}

fn vendor_end(anthropic: bool, tokens: usize) -> String {
    if anthropic {
        format!(
            "event: message_delta\ndata: {}\n\nevent: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": tokens}})
        )
    } else {
        let finish = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
        let usage =
            json!({"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": tokens}});
        format!("data: {finish}\n\ndata: {usage}\n\ndata: [DONE]\n\n")
    }
}

async fn serve_vendor(mut socket: TcpStream) {
    let Some((path, body)) = read_request(&mut socket).await else {
        return;
    };
    let received = now_us();
    let anthropic = path.ends_with("/v1/messages");
    let model = body["model"].as_str().unwrap_or_default().to_owned();
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
    if socket.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    if anthropic {
        let start = format!(
            "event: message_start\ndata: {}\n\n",
            json!({"type": "message_start", "message": {"usage": {"input_tokens": 10, "output_tokens": 1}}})
        );
        let _ = socket.write_all(start.as_bytes()).await;
    }
    if model == "hold" {
        let mut byte = [0u8; 1];
        let _ = socket.read(&mut byte).await;
        return;
    }
    let mut parts = model.split(':').skip(1);
    let tokens: usize = parts.next().and_then(|t| t.parse().ok()).unwrap_or(50);
    let interval = Duration::from_millis(parts.next().and_then(|t| t.parse().ok()).unwrap_or(20));
    let start = tokio::time::Instant::now();
    for i in 0..tokens {
        tokio::time::sleep_until(start + interval * i as u32).await;
        let frame = vendor_frame(anthropic, &format!("{received}:{} ", now_us()));
        if socket.write_all(frame.as_bytes()).await.is_err() {
            return;
        }
    }
    let _ = socket
        .write_all(vendor_end(anthropic, tokens).as_bytes())
        .await;
    let _ = socket.shutdown().await;
}

// ---- the server under test --------------------------------------------------

struct Confer {
    child: Child,
    base: String,
    data: PathBuf,
    /// Per-turn phase timings (µs) from the server's log, with `--phases`.
    phases: Arc<Mutex<BTreeMap<String, Vec<u64>>>>,
    _dir: tempfile::TempDir,
}

impl Confer {
    fn start(vendor: &str, dir: Option<tempfile::TempDir>) -> Self {
        let dir = dir.unwrap_or_else(|| tempfile::tempdir().unwrap());
        let data = dir.path().join("data");
        let mut command = support::confer_command(&data, KEY);
        command
            .env("OPENAI_BASE_URL", format!("{vendor}/v1"))
            .env("ANTHROPIC_BASE_URL", vendor)
            .env("OPENAI_API_KEY", "sk-load")
            .env("ANTHROPIC_API_KEY", "sk-load")
            .env("CONFER_MAX_LIVE_THREADS", "100000")
            .stderr(Stdio::inherit());
        let collect = PHASES.load(Ordering::Relaxed);
        if collect {
            command
                .env("CONFER_LOG", "warn,confer::turn_timings=debug")
                .env("CONFER_LOG_FORMAT", "json")
                .stderr(Stdio::piped());
        }
        let (mut child, base) = support::spawn_listening(command);
        let phases = Arc::new(Mutex::new(BTreeMap::new()));
        if let Some(stderr) = child.stderr.take() {
            let phases = Arc::clone(&phases);
            std::thread::spawn(move || collect_phases(stderr, &phases));
        }
        Self {
            child,
            base,
            data,
            phases,
            _dir: dir,
        }
    }

    /// p50/p90/p99 (ms) of each phase logged so far.
    fn phase_percentiles(&self) -> Value {
        let phases = self.phases.lock().unwrap();
        if phases.is_empty() {
            return Value::Null;
        }
        PHASE_FIELDS
            .iter()
            .map(|f| {
                let values = phases.get(*f).cloned().unwrap_or_default();
                (f.trim_end_matches("_us").to_owned(), percentiles(values))
            })
            .collect::<serde_json::Map<_, _>>()
            .into()
    }

    /// (CPU seconds, current RSS KiB, peak RSS KiB) from /proc.
    fn usage(&self) -> (f64, u64, u64) {
        proc_usage(self.child.id())
    }

    fn kill(mut self) -> tempfile::TempDir {
        support::kill_server(&mut self.child);
        std::mem::replace(&mut self._dir, tempfile::tempdir().unwrap())
    }
}

impl Drop for Confer {
    fn drop(&mut self) {
        support::kill_server(&mut self.child);
    }
}

/// Reads the server's JSON log: `turn timings` lines are collected, the
/// rest is passed on to our standard error.
fn collect_phases(stderr: std::process::ChildStderr, phases: &Mutex<BTreeMap<String, Vec<u64>>>) {
    use std::io::BufRead;
    for line in std::io::BufReader::new(stderr)
        .lines()
        .map_while(Result::ok)
    {
        let Ok(event) = serde_json::from_str::<Value>(&line) else {
            eprintln!("{line}");
            continue;
        };
        if event["message"] != "turn timings" {
            eprintln!("{line}");
            continue;
        }
        let mut phases = phases.lock().unwrap();
        for field in PHASE_FIELDS {
            if let Some(us) = event[field].as_u64() {
                phases.entry(field.to_owned()).or_default().push(us);
            }
        }
    }
}

fn proc_usage(pid: u32) -> (f64, u64, u64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, r)| r)
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    let cpu = (ticks(11) + ticks(12)) / 100.0; // utime + stime at USER_HZ = 100
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kib = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    };
    (cpu, kib("VmRSS:"), kib("VmHWM:"))
}

fn dir_size(path: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(path) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => dir_size(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

// ---- the client ----------------------------------------------------------------

#[derive(Clone)]
struct Client {
    http: reqwest::Client,
    base: String,
}

impl Client {
    fn new(base: &str) -> Self {
        let http = reqwest::Client::builder()
            .tcp_nodelay(true)
            .pool_max_idle_per_host(4096)
            .build()
            .unwrap();
        Self {
            http,
            base: base.to_owned(),
        }
    }

    async fn post(&self, path: &str, body: Value) -> Value {
        support::post_json(&self.http, &self.base, KEY, path, body).await
    }

    async fn get(&self, path: &str) -> (Duration, Value) {
        let started = Instant::now();
        let body = self
            .http
            .get(format!("{}{path}", self.base))
            .bearer_auth(KEY)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        (started.elapsed(), body)
    }

    async fn agent(&self, model: &str) -> String {
        let agent = self
            .post(
                "/api/agents",
                json!({"name": "load", "defaultModel": model}),
            )
            .await;
        agent["id"].as_str().unwrap().to_owned()
    }

    async fn thread(&self, agent: &str) -> String {
        self.post("/api/threads", json!({"agentId": agent})).await["id"]
            .as_str()
            .unwrap()
            .to_owned()
    }
}

/// Per-token and first-token delays one turn added, in µs.
#[derive(Default)]
struct TurnSample {
    added_ttft: Option<u64>,
    added_gaps: Vec<u64>,
    tokens: usize,
    ok: bool,
    message_id: Option<String>,
}

/// Where a stream is read from.
#[derive(Clone, Copy, PartialEq)]
enum Path_ {
    Confer,
    Direct,
    DirectAnthropic,
}

/// Sends one turn and reads it to the end, timing every stamped token.
async fn turn(
    client: &Client,
    path: Path_,
    thread: &str,
    model: &str,
    content: &str,
) -> TurnSample {
    let started = now_us();
    let request = match path {
        Path_::Confer => client
            .http
            .post(format!("{}/api/threads/{thread}/messages", client.base))
            .bearer_auth(KEY)
            .json(&json!({"content": content})),
        Path_::Direct => client
            .http
            .post(format!("{}/v1/chat/completions", client.base))
            .json(&json!({"model": model, "stream": true, "messages": [{"role": "user", "content": content}]})),
        Path_::DirectAnthropic => client
            .http
            .post(format!("{}/v1/messages", client.base))
            .json(&json!({"model": model, "stream": true, "max_tokens": 100, "messages": [{"role": "user", "content": content}]})),
    };
    let mut sample = TurnSample::default();
    let Ok(mut response) = request.send().await else {
        return sample;
    };
    let mut buffer = String::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        let received = now_us();
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let frame: String = buffer.drain(..end + 2).collect();
            let Some(data) = frame.lines().find_map(|l| l.strip_prefix("data: ")) else {
                continue;
            };
            let Ok(data) = serde_json::from_str::<Value>(data) else {
                continue;
            };
            let text = match path {
                Path_::Confer if frame.contains("event: token") => {
                    data["delta"].as_str().map(str::to_owned)
                }
                Path_::Confer if frame.contains("event: done") => {
                    sample.ok = data["ok"] == true;
                    sample.message_id = data["messageId"].as_str().map(str::to_owned);
                    None
                }
                Path_::Direct => data["choices"][0]["delta"]["content"]
                    .as_str()
                    .map(str::to_owned),
                Path_::DirectAnthropic => data["delta"]["text"].as_str().map(str::to_owned),
                Path_::Confer => None,
            };
            let Some(text) = text else { continue };
            let Some((recv, sent)) = text.trim().split_once(':') else {
                continue;
            };
            let (recv, sent): (u64, u64) = (recv.parse().unwrap_or(0), sent.parse().unwrap_or(0));
            sample.tokens += 1;
            if sample.added_ttft.is_none() {
                let total = received.saturating_sub(started);
                sample.added_ttft = Some(total.saturating_sub(sent.saturating_sub(recv)));
            }
            sample.added_gaps.push(received.saturating_sub(sent));
        }
    }
    if path != Path_::Confer {
        sample.ok = sample.tokens > 0;
    }
    sample
}

fn percentiles(mut values: Vec<u64>) -> Value {
    if values.is_empty() {
        return json!(null);
    }
    values.sort_unstable();
    let at = |p: f64| values[((values.len() - 1) as f64 * p).round() as usize] as f64 / 1000.0;
    json!({"p50": at(0.5), "p90": at(0.9), "p99": at(0.99), "max": at(1.0), "n": values.len()})
}

fn self_cpu() -> f64 {
    proc_usage(std::process::id()).0
}

// ---- scenarios ---------------------------------------------------------------------

/// N streams, each on its own thread, `turns` turns each, paced by the vendor.
async fn paced(o: &Options, vendor: &str, n: usize) -> Value {
    let model = format!("paced:{}:{}", o.tokens, o.interval_ms);
    let anthropic = o.vendor == "anthropic";
    let mut runs = BTreeMap::new();
    for path in [Path_::Direct, Path_::Confer] {
        let confer = (path == Path_::Confer).then(|| Confer::start(vendor, None));
        let client = Client::new(confer.as_ref().map_or(vendor, |c| c.base.as_str()));
        let threads: Vec<String> = match &confer {
            Some(_) => {
                let agent = client.agent(&format!("{}/{model}", o.vendor)).await;
                let mut threads = Vec::with_capacity(n);
                for _ in 0..n {
                    threads.push(client.thread(&agent).await);
                }
                threads
            }
            None => vec![String::new(); n],
        };
        // One turn first, on a thread of its own: what a server pays once
        // (code first run, lazily built state, the vendor connection pool)
        // is not a stream's cost.
        if confer.is_some() {
            let agent = client.agent(&format!("{}/{model}", o.vendor)).await;
            let warm = client.thread(&agent).await;
            turn(&client, Path_::Confer, &warm, &model, "warm-up").await;
        }
        let baseline = confer.as_ref().map(Confer::usage);
        let peak_rss = Arc::new(AtomicU64::new(0));
        let sampler = confer.as_ref().map(|c| {
            let pid = c.child.id();
            let peak = Arc::clone(&peak_rss);
            tokio::spawn(async move {
                loop {
                    peak.fetch_max(proc_usage(pid).1, Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            })
        });
        let client_cpu = self_cpu();
        let started = Instant::now();
        let path = match (path, anthropic) {
            (Path_::Direct, true) => Path_::DirectAnthropic,
            (p, _) => p,
        };
        // Arrivals spread over the ramp: opening every connection in the same
        // millisecond overflows the kernel's SYN queue (1 s retransmits), on
        // the direct path as much as through Confer.
        let ramp = Duration::from_millis(o.ramp_ms);
        let tasks: Vec<_> = threads
            .into_iter()
            .enumerate()
            .map(|(i, thread)| {
                let client = client.clone();
                let model = model.clone();
                let turns = o.turns;
                let delay = ramp.mul_f64(i as f64 / n as f64);
                tokio::spawn(async move {
                    tokio::time::sleep(delay).await;
                    let mut samples = Vec::new();
                    for t in 0..turns {
                        samples
                            .push(turn(&client, path, &thread, &model, &format!("turn {t}")).await);
                    }
                    samples
                })
            })
            .collect();
        let mut ttft = Vec::new();
        let mut gaps = Vec::new();
        let (mut turns_ok, mut errors, mut tokens) = (0usize, 0usize, 0usize);
        for task in tasks {
            for sample in task.await.unwrap() {
                if sample.ok && sample.tokens == o.tokens {
                    turns_ok += 1;
                } else {
                    errors += 1;
                }
                tokens += sample.tokens;
                ttft.extend(sample.added_ttft);
                gaps.extend(sample.added_gaps);
            }
        }
        let wall = started.elapsed().as_secs_f64();
        let client_cpu = self_cpu() - client_cpu;
        let mut run = json!({
            "added_inter_token_ms": percentiles(gaps),
            "added_ttft_ms": percentiles(ttft),
            "turns_per_s": turns_ok as f64 / wall,
            "tokens_per_s": tokens as f64 / wall,
            "errors": errors,
            "wall_s": wall,
            "client_cpu_s": client_cpu,
        });
        if let (Some(confer), Some((cpu0, rss0, _))) = (&confer, baseline) {
            if let Some(sampler) = sampler {
                sampler.abort();
            }
            let (cpu, _, hwm) = confer.usage();
            let peak = peak_rss.load(Ordering::Relaxed);
            run["server_cpu_s"] = json!(cpu - cpu0);
            run["server_peak_rss_mib"] = json!(hwm as f64 / 1024.0);
            run["rss_per_active_stream_kib"] = json!(peak.saturating_sub(rss0) as f64 / n as f64);
            run["phases_ms"] = confer.phase_percentiles();
        }
        runs.insert(
            if path == Path_::Confer {
                "confer"
            } else {
                "direct"
            },
            run,
        );
    }
    let ratio = |key: &str, p: &str| {
        let c = runs["confer"][key][p].as_f64().unwrap_or(0.0);
        let d = runs["direct"][key][p].as_f64().unwrap_or(0.0);
        if d > 0.0 { json!(c / d) } else { json!(null) }
    };
    json!({
        "streams": n,
        "confer": runs["confer"],
        "direct": runs["direct"],
        "ratio_inter_token_p99": ratio("added_inter_token_ms", "p99"),
        "ratio_ttft_p50": ratio("added_ttft_ms", "p50"),
    })
}

/// builtin/echo with no delay: as many durable turns per second as possible.
async fn burst(vendor: &str) -> Value {
    let confer = Confer::start(vendor, None);
    let client = Client::new(&confer.base);
    let agent = client.agent("builtin/echo").await;
    let clients = 32;
    let duration = Duration::from_secs(8);
    let (cpu0, _, _) = confer.usage();
    let started = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|_| {
            let client = client.clone();
            let agent = agent.clone();
            tokio::spawn(async move {
                let thread = client.thread(&agent).await;
                let (mut ok, mut errors) = (0usize, 0usize);
                while started.elapsed() < duration {
                    let sample =
                        turn(&client, Path_::Confer, &thread, "", "hello durable world").await;
                    if sample.ok { ok += 1 } else { errors += 1 }
                }
                (ok, errors)
            })
        })
        .collect();
    let (mut ok, mut errors) = (0, 0);
    for task in tasks {
        let (o, e) = task.await.unwrap();
        ok += o;
        errors += e;
    }
    let wall = started.elapsed().as_secs_f64();
    let (cpu, _, hwm) = confer.usage();
    // Each turn stores two listed messages and two context entries.
    let messages = (ok * 2) as f64;
    let disk = dir_size(&confer.data) as f64;
    json!({
        "clients": clients,
        "turns_per_s": ok as f64 / wall,
        "errors": errors,
        "server_cpu_s": cpu - cpu0,
        "server_cpu_per_turn_ms": (cpu - cpu0) * 1000.0 / ok.max(1) as f64,
        "server_peak_rss_mib": hwm as f64 / 1024.0,
        "disk_bytes_per_message": disk / messages.max(1.0),
    })
}

/// N quiet open streams (the vendor holds every answer): memory per stream.
async fn idle(vendor: &str, n: usize) -> Value {
    let confer = Confer::start(vendor, None);
    let client = Client::new(&confer.base);
    let agent = client.agent("openai/hold").await;
    let mut threads = Vec::with_capacity(n);
    for _ in 0..n {
        threads.push(client.thread(&agent).await);
    }
    // Warm the runtime with finished turns so the baseline is not a cold process.
    let warm_agent = client.agent("openai/paced:2:0").await;
    let warm_thread = client.thread(&warm_agent).await;
    for _ in 0..3 {
        turn(&client, Path_::Confer, &warm_thread, "", "warm").await;
    }
    let (_, rss0, _) = confer.usage();
    let mut opened = Vec::with_capacity(n);
    for thread in &threads {
        let request = client
            .http
            .post(format!("{}/api/threads/{thread}/messages", client.base))
            .bearer_auth(KEY)
            .json(&json!({"content": "wait"}));
        opened.push(tokio::spawn(async move {
            let mut response = request.send().await.ok()?;
            // Read the meta frame, then hold the stream open.
            let _ = response.chunk().await;
            let _ = response.chunk().await;
            Some(response)
        }));
    }
    let mut open = Vec::with_capacity(n);
    for task in opened {
        if let Some(response) = task.await.unwrap() {
            open.push(response);
        }
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (_, rss, _) = confer.usage();
    let opened = open.len();
    let per_stream = rss.saturating_sub(rss0) as f64 / opened.max(1) as f64;
    // The server goes first, so a heap profiler (CONFER_BENCH_WRAPPER) sees
    // every stream's memory as still live when it stops.
    drop(confer);
    drop(open);
    json!({"streams": n, "open": opened, "rss_before_kib": rss0, "rss_open_kib": rss,
           "rss_per_idle_stream_kib": per_stream})
}

/// Writes `count` messages into a thread directly through the store.
fn fill_thread(data: &Path, thread: &str, count: usize) {
    use confer::store::Store;
    use confer_actors::{
        ContextMessage, ContextRole, Message, MessageId, Role, ThreadAppend, ThreadId,
    };
    let store = Store::open(data).unwrap();
    let port = store.as_port();
    let thread: ThreadId = thread.parse().unwrap();
    for i in 0..count {
        let role = if i % 2 == 0 {
            Role::User
        } else {
            Role::Assistant
        };
        let context_role = if i % 2 == 0 {
            ContextRole::User
        } else {
            ContextRole::Assistant
        };
        let text = format!("message number {i} of a long conversation about load");
        let message = Message {
            id: MessageId::new(),
            thread_id: thread,
            seq: 0,
            role,
            content: text.clone(),
            sender_name: None,
            sender_id: None,
            created_at: chrono::Utc::now(),
        };
        let write = ThreadAppend {
            listed: Some(message),
            context: vec![ContextMessage::text(context_role, text)],
            ..ThreadAppend::default()
        };
        port.append(thread, write).unwrap();
    }
    store.flush_now().unwrap();
}

/// A thread with 10,000 messages: list a page at offset 0 and at the end; send.
async fn history(vendor: &str) -> Value {
    let confer = Confer::start(vendor, None);
    let client = Client::new(&confer.base);
    let agent = client.agent("builtin/echo").await;
    let thread = client.thread(&agent).await;
    let dir = confer.kill();
    fill_thread(&dir.path().join("data"), &thread, 10_000);
    let confer = Confer::start(vendor, Some(dir));
    let client = Client::new(&confer.base);
    let page = |offset: usize| {
        let client = client.clone();
        let thread = thread.clone();
        async move {
            let mut times = Vec::new();
            for _ in 0..50 {
                let (t, body) = client
                    .get(&format!(
                        "/api/threads/{thread}/messages?offset={offset}&limit=100"
                    ))
                    .await;
                assert_eq!(body["total"], 10_000);
                times.push(t.as_micros() as u64);
            }
            percentiles(times)
        }
    };
    let first = page(0).await;
    let last = page(9_900).await;
    let mut sends = Vec::new();
    let mut cold = None;
    for i in 0..20 {
        let started = Instant::now();
        let sample = turn(&client, Path_::Confer, &thread, "", "one more").await;
        assert!(sample.ok);
        let t = started.elapsed().as_micros() as u64;
        if i == 0 {
            cold = Some(t as f64 / 1000.0)
        } else {
            sends.push(t)
        }
    }
    json!({"messages": 10_000, "page_offset_0_ms": first, "page_offset_9900_ms": last,
           "send_cold_ms": cold, "send_warm_ms": percentiles(sends)})
}

/// Store `count` messages, kill -9 right after an acknowledged turn, restart.
async fn recovery(vendor: &str, count: usize) -> Value {
    let confer = Confer::start(vendor, None);
    let client = Client::new(&confer.base);
    let agent = client.agent("builtin/echo").await;
    let thread = client.thread(&agent).await;
    let dir = confer.kill();
    let filled = Instant::now();
    fill_thread(&dir.path().join("data"), &thread, count);
    let fill_s = filled.elapsed().as_secs_f64();
    let confer = Confer::start(vendor, Some(dir));
    let client = Client::new(&confer.base);
    let sample = turn(&client, Path_::Confer, &thread, "", "acknowledged").await;
    let acknowledged = sample.message_id.expect("done carries a messageId");
    let dir = confer.kill(); // SIGKILL right after done
    let restarted = Instant::now();
    let confer = Confer::start(vendor, Some(dir));
    let client = Client::new(&confer.base);
    loop {
        if client
            .http
            .get(format!("{}/healthz", client.base))
            .send()
            .await
            .is_ok()
        {
            break;
        }
    }
    let healthy = restarted.elapsed().as_secs_f64();
    let total = count + 2;
    let (_, page) = client
        .get(&format!(
            "/api/threads/{thread}/messages?offset={}&limit=10",
            total - 1
        ))
        .await;
    let listed = page["messages"][0]["id"].as_str() == Some(acknowledged.as_str());
    json!({"messages": count, "fill_s": fill_s, "healthz_after_restart_s": healthy,
           "last_acknowledged_listed_s": restarted.elapsed().as_secs_f64(), "acknowledged_found": listed})
}

// ---- report --------------------------------------------------------------------------

fn fmt(v: &Value) -> String {
    match v {
        Value::Number(n) => format!("{:.3}", n.as_f64().unwrap_or(0.0)),
        Value::Null => "–".into(),
        other => other.to_string(),
    }
}

fn table(results: &Value) -> String {
    let mut out = String::from("| scenario | measure | value |\n|---|---|---|\n");
    for run in results["paced"].as_array().into_iter().flatten() {
        let n = run["streams"].as_u64().unwrap_or(0);
        let c = &run["confer"];
        let d = &run["direct"];
        let scenario = format!("paced {n}");
        for (label, key) in [
            ("added inter-token (ms)", "added_inter_token_ms"),
            ("added TTFT (ms)", "added_ttft_ms"),
        ] {
            out.push_str(&format!(
                "| {scenario} | {label} p50 / p90 / p99 / max | {} / {} / {} / {} (direct {} / {} / {} / {}) |\n",
                fmt(&c[key]["p50"]), fmt(&c[key]["p90"]), fmt(&c[key]["p99"]), fmt(&c[key]["max"]),
                fmt(&d[key]["p50"]), fmt(&d[key]["p90"]), fmt(&d[key]["p99"]), fmt(&d[key]["max"]),
            ));
        }
        out.push_str(&format!(
            "| {scenario} | ratio to direct: inter-token p99, TTFT p50 | {} , {} |\n",
            fmt(&run["ratio_inter_token_p99"]),
            fmt(&run["ratio_ttft_p50"])
        ));
        out.push_str(&format!(
            "| {scenario} | turns/s, tokens/s, errors | {} , {} , {} |\n",
            fmt(&c["turns_per_s"]),
            fmt(&c["tokens_per_s"]),
            c["errors"]
        ));
        out.push_str(&format!(
            "| {scenario} | server CPU s, client CPU s, peak RSS MiB | {} , {} , {} |\n",
            fmt(&c["server_cpu_s"]),
            fmt(&c["client_cpu_s"]),
            fmt(&c["server_peak_rss_mib"])
        ));
        out.push_str(&format!(
            "| {scenario} | RSS per active stream (KiB) | {} |\n",
            fmt(&c["rss_per_active_stream_kib"])
        ));
        for phase in PHASE_FIELDS.map(|f| f.trim_end_matches("_us")) {
            let p = &c["phases_ms"][phase];
            if p.is_null() {
                continue;
            }
            out.push_str(&format!(
                "| {scenario} | turn phase `{phase}` (ms) p50 / p90 / p99 | {} / {} / {} |\n",
                fmt(&p["p50"]),
                fmt(&p["p90"]),
                fmt(&p["p99"])
            ));
        }
    }
    let b = &results["burst"];
    if !b.is_null() {
        out.push_str(&format!(
            "| burst | durable turns/s ({} clients), errors | {} , {} |\n",
            b["clients"],
            fmt(&b["turns_per_s"]),
            b["errors"]
        ));
        out.push_str(&format!(
            "| burst | server CPU per turn (ms), peak RSS MiB | {} , {} |\n",
            fmt(&b["server_cpu_per_turn_ms"]),
            fmt(&b["server_peak_rss_mib"])
        ));
        out.push_str(&format!(
            "| burst | on-disk bytes per stored message | {} |\n",
            fmt(&b["disk_bytes_per_message"])
        ));
    }
    let i = &results["idle"];
    if !i.is_null() {
        out.push_str(&format!(
            "| idle {} | RSS per idle open stream (KiB), streams open | {} , {} |\n",
            i["streams"],
            fmt(&i["rss_per_idle_stream_kib"]),
            i["open"]
        ));
    }
    let h = &results["history"];
    if !h.is_null() {
        out.push_str(&format!(
            "| history 10k | page at offset 0 / 9900, p50 (ms) | {} / {} |\n",
            fmt(&h["page_offset_0_ms"]["p50"]),
            fmt(&h["page_offset_9900_ms"]["p50"])
        ));
        out.push_str(&format!(
            "| history 10k | send: first (cold) / warm p50 (ms) | {} / {} |\n",
            fmt(&h["send_cold_ms"]),
            fmt(&h["send_warm_ms"]["p50"])
        ));
    }
    let r = &results["recovery"];
    if !r.is_null() {
        out.push_str(&format!("| recovery {} | healthz / last acknowledged listed after kill -9 (s) | {} / {} ({}) |\n",
            r["messages"], fmt(&r["healthz_after_restart_s"]), fmt(&r["last_acknowledged_listed_s"]), r["acknowledged_found"]));
    }
    out
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let o = options();
    let limit = rlimit::increase_nofile_limit(u64::MAX).unwrap_or(0);
    println!("open-file limit raised to {limit}");
    let wants = |name: &str| {
        o.only
            .as_deref()
            .is_none_or(|only| only.split(',').any(|o| o == name))
    };
    let vendor = mock_vendor().await;
    let started = Instant::now();
    let mut results = json!({"options": format!("{o:?}"), "cores": std::thread::available_parallelism().map_or(1, usize::from)});
    if wants("paced") {
        let mut runs = Vec::new();
        for &n in &o.paced {
            eprintln!("paced: {n} streams");
            runs.push(paced(&o, &vendor, n).await);
        }
        results["paced"] = json!(runs);
    }
    if wants("burst") {
        eprintln!("burst");
        results["burst"] = burst(&vendor).await;
    }
    if wants("idle") {
        eprintln!("idle: {} streams", o.idle);
        results["idle"] = idle(&vendor, o.idle).await;
    }
    if wants("history") {
        eprintln!("history");
        results["history"] = history(&vendor).await;
    }
    if let Some(count) = o.recovery.filter(|_| wants("recovery")) {
        eprintln!("recovery: {count} messages");
        results["recovery"] = recovery(&vendor, count).await;
    }
    results["total_s"] = json!(started.elapsed().as_secs_f64());
    let out_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench");
    std::fs::create_dir_all(&out_dir).unwrap();
    std::fs::write(
        out_dir.join("load.json"),
        serde_json::to_string_pretty(&results).unwrap(),
    )
    .unwrap();
    let table = table(&results);
    std::fs::write(out_dir.join("load.md"), &table).unwrap();
    println!(
        "\n{table}\nJSON: target/bench/load.json ({:.0} s in all)",
        started.elapsed().as_secs_f64()
    );
}
