//! What the benchmark binaries share: starting the real `confer` binary and
//! waiting for it to listen (its "confer listening on" line, never a sleep),
//! reading a request in the mock peers, and the latency table.

// Each benchmark uses a part of this module.
#![allow(dead_code)]

pub mod tool_step;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// A `confer serve` command on port 0 and `data_dir`, ready for more settings.
///
/// `CONFER_BENCH_WRAPPER` (e.g. `heaptrack -o /tmp/confer`) runs the server
/// under a profiler; the /proc figures then describe the wrapper, not Confer.
pub fn confer_command(data_dir: &std::path::Path, key: &str) -> Command {
    confer_command_of(env!("CARGO_BIN_EXE_confer").as_ref(), data_dir, key)
}

/// [`confer_command`] with another `confer` binary (an older build to
/// compare with).
pub fn confer_command_of(
    binary: &std::path::Path,
    data_dir: &std::path::Path,
    key: &str,
) -> Command {
    let wrapper = std::env::var("CONFER_BENCH_WRAPPER").unwrap_or_default();
    let mut words = wrapper.split_whitespace();
    let mut command = match words.next() {
        Some(program) => {
            let mut command = Command::new(program);
            command.args(words).arg(binary);
            command
        }
        None => Command::new(binary),
    };
    command
        .arg("serve")
        .env("CONFER_BIND", "127.0.0.1:0")
        .env("CONFER_DATA_DIR", data_dir)
        .env("CONFER_BOOTSTRAP_API_KEY", key)
        .env("CONFER_LOG", "warn");
    command
}

/// Spawns `command`, returns the child and its base URL once it listens;
/// the rest of its standard output is drained so it never blocks.
pub fn spawn_listening(mut command: Command) -> (Child, String) {
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .expect("start confer");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut lines = BufReader::new(stdout).lines();
    let base = loop {
        let line = lines.next().expect("confer output").expect("line");
        if let Some(address) = line.strip_prefix("confer listening on ") {
            break address.to_owned();
        }
    };
    std::thread::spawn(move || lines.for_each(drop));
    (child, base)
}

/// SIGKILLs the server: `child`, and under a profiler wrapper the `confer`
/// process below it (the profiler's own helpers are left to finish writing).
pub fn kill_server(child: &mut Child) {
    let binary = std::path::Path::new(env!("CARGO_BIN_EXE_confer"));
    for pid in descendants(child.id()) {
        if std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| exe == binary) {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

fn descendants(root: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let parents: Vec<(u32, u32)> = entries
        .flatten()
        .filter_map(|e| {
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let ppid = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            Some((pid, ppid))
        })
        .collect();
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(
            parents
                .iter()
                .filter(|(_, p)| *p == parent)
                .map(|(c, _)| *c),
        );
        i += 1;
    }
    found.remove(0);
    found
}

/// Reads one HTTP/1.1 request from `socket`: its path and body.
pub async fn read_http_request(socket: &mut tokio::net::TcpStream) -> Option<(String, Vec<u8>)> {
    use tokio::io::AsyncReadExt;
    let mut buffer = Vec::with_capacity(4096);
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buffer[..end]).to_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            while buffer.len() < end + 4 + length {
                let n = socket.read(&mut chunk).await.ok()?;
                if n == 0 {
                    return None;
                }
                buffer.extend_from_slice(&chunk[..n]);
            }
            let path = head.split_whitespace().nth(1)?.to_owned();
            return Some((path, buffer[end + 4..end + 4 + length].to_vec()));
        }
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
}

/// The `p` quantile of `sorted`.
pub fn percentile(sorted: &[std::time::Duration], p: f64) -> std::time::Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

/// Milliseconds with three decimals.
pub fn ms(d: std::time::Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1000.0)
}

/// Prints a markdown table of p50 / p90 / p99 / max per measure.
pub fn print_latencies(rows: &[(&str, &[std::time::Duration])]) {
    println!("\n| measure | p50 | p90 | p99 | max |");
    println!("|---|---|---|---|---|");
    for (name, times) in rows {
        println!(
            "| {name} | {} | {} | {} | {} |",
            ms(percentile(times, 0.5)),
            ms(percentile(times, 0.9)),
            ms(percentile(times, 0.99)),
            ms(*times.last().expect("measured"))
        );
    }
}

/// A running `confer`, killed when dropped (its data directory goes too).
pub struct RunningServer {
    pub child: Child,
    pub base: String,
    pub data: tempfile::TempDir,
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        kill_server(&mut self.child);
    }
}

/// `POST {base}{path}` with `body`, as `key`; the answer's JSON (null when
/// it has none).
pub async fn post_json(
    http: &reqwest::Client,
    base: &str,
    key: &str,
    path: &str,
    body: serde_json::Value,
) -> serde_json::Value {
    http.post(format!("{base}{path}"))
        .bearer_auth(key)
        .json(&body)
        .send()
        .await
        .expect("the server answers")
        .json()
        .await
        .unwrap_or(serde_json::Value::Null)
}

/// A send to `thread` read to its end: its wall time and the whole SSE text
/// (which ends with a `done` event, asserted).
pub async fn send_to_done(
    http: &reqwest::Client,
    base: &str,
    key: &str,
    thread: &str,
    body: &serde_json::Value,
) -> (std::time::Duration, String) {
    let started = std::time::Instant::now();
    let mut response = http
        .post(format!("{base}/api/threads/{thread}/messages"))
        .bearer_auth(key)
        .json(body)
        .send()
        .await
        .expect("the server answers");
    let mut text = String::new();
    while let Some(chunk) = response.chunk().await.expect("the stream reads") {
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(text.contains("event: done"), "{text}");
    (started.elapsed(), text)
}

/// The resident memory of process `pid` (MiB).
pub fn rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kib| kib / 1024.0)
}

/// The CPU time process `pid` has used, user and system (seconds, at the
/// kernel's usual 100 ticks a second).
pub fn cpu_secs(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command's closing parenthesis; utime and stime are
    // the 14th and 15th of the line.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(Vec::new(), |(_, rest)| rest.split_whitespace().collect());
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}
