//! The concurrent-streams load generator: how many answers Confer streams at
//! once, what it adds to each token and to the first token, and what a stream
//! costs in memory, CPU and disk. See docs/performance.md.
//!
//! `cargo bench --bench load` runs the default set (paced at 100, 500 and
//! 1,000 streams, burst, idle with 2,000 streams, history) and prints a
//! markdown table; the JSON lands in `target/bench/load.json`. Flags (after
//! `--`): `--paced 100,500,1000,2000`, `--idle 10000`, `--recovery 1000000`,
//! `--only paced,burst,webhook,idle,history,recovery` (any of them; `webhook`:
//! runs/s through a runner's webhook trigger, see `webhooks`), `--turns N`, `--tokens N`,
//! `--interval-ms N`, `--ramp-ms N` (streams start spread over this; 1000),
//! `--vendor openai|anthropic`, `--phases` (the server logs each turn's
//! phase timings, `confer::turn_timings`, and the paced rows break the time
//! to first token down by phase; off by default, as it adds a log line per turn),
//! `--pin` (the server on CPU 0 alone, this generator on the others; see `pin`).
//!
//! `--targets --baseline PATH --rounds N --pin` reports every figure of
//! issue 18's table before (PATH) and after (this build), met or missed
//! (`target/bench/targets.{json,md}`; see `targets`).
//!
//! `--baseline PATH --rounds N` compares builds: the paced loads, the burst
//! and the idle streams (or those `--only` names), each run once with the
//! `confer` binary at PATH (an older build) and once with this one,
//! alternated, N rounds (3), without the direct path; the table
//! gives each measure's median and range for both and the change of the
//! medians, and the runs land in `target/bench/compare.json`. Near one
//! core's saturation single runs are bimodal (a backlog formed during the
//! ramp may persist), so compare medians of several rounds, with `--pin`.
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

#[path = "../support/mod.rs"]
mod support;

mod client;
mod compare;
mod paced;
mod pin;
mod report;
mod runs;
mod server;
mod targets;
mod vendor;
mod webhooks;

use client::*;
use compare::*;
use paced::*;
use report::*;
use runs::*;
use server::*;
use vendor::*;
use webhooks::*;

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
    /// Also measure each paced load against the mock directly.
    direct: bool,
    pin: bool,
    baseline: Option<PathBuf>,
    rounds: usize,
    /// `--targets`: issue 18's table against the baseline (see `targets`).
    targets: bool,
}

impl Options {
    /// Whether `--only` (absent: everything) names scenario `name`.
    fn wants(&self, name: &str) -> bool {
        self.only
            .as_deref()
            .is_none_or(|only| only.split(',').any(|o| o == name))
    }
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
        direct: true,
        pin: false,
        baseline: None,
        rounds: 3,
        targets: false,
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
            "--baseline" => o.baseline = Some(PathBuf::from(value)),
            "--rounds" => o.rounds = value.parse().unwrap(),
            "--targets" => {
                o.targets = true;
                i += 1;
                continue;
            }
            "--pin" => {
                o.pin = true;
                i += 1;
                continue;
            }
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

fn main() {
    let o = options();
    if o.pin {
        // Before the runtime's threads start: they inherit it.
        if let Err(error) = pin::generator_off_cpu0() {
            eprintln!("{error}");
            std::process::exit(2);
        }
        PIN.store(true, Ordering::Relaxed);
    }
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(run(o));
}

async fn run(o: Options) {
    let limit = rlimit::increase_nofile_limit(u64::MAX).unwrap_or(0);
    println!("open-file limit raised to {limit}");
    let wants = |name: &str| o.wants(name);
    let vendor = mock_vendor().await;
    if let Some(baseline) = o.baseline.clone() {
        if o.targets {
            targets::targets(&o, &vendor, baseline).await;
        } else {
            compare(&o, &vendor, baseline).await;
        }
        return;
    }
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
    if wants("webhook") {
        eprintln!("webhook runs");
        results["webhook"] = webhook(&vendor).await;
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
    write_results("load", &results, &table(&results), started);
}

/// Writes `target/bench/{stem}.json` and `{stem}.md` and prints the table.
fn write_results(stem: &str, results: &Value, table: &str, started: Instant) {
    let out_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench");
    std::fs::create_dir_all(&out_dir).unwrap();
    std::fs::write(
        out_dir.join(format!("{stem}.json")),
        serde_json::to_string_pretty(results).unwrap(),
    )
    .unwrap();
    std::fs::write(out_dir.join(format!("{stem}.md")), table).unwrap();
    println!(
        "\n{table}\nJSON: target/bench/{stem}.json ({:.0} s in all)",
        started.elapsed().as_secs_f64()
    );
}
