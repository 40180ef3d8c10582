//! `--targets`: every figure of issue 18's table (docs/performance-history.md,
//! "Performance round 2"), for the `--baseline` binary ("before") and this
//! build ("after"), alternated in one run, `--rounds` times, and each
//! median set against its target: met or missed. Meant with `--pin` (the
//! server on one core, the generator and the mock vendor on the others).

use super::*;

/// What a target asks of a figure.
#[derive(Clone, Copy)]
enum Goal {
    AtMost(f64),
    AtLeast(f64),
}

impl Goal {
    fn met(self, value: f64) -> bool {
        match self {
            Self::AtMost(limit) => value <= limit,
            Self::AtLeast(floor) => value >= floor,
        }
    }

    fn label(self) -> String {
        match self {
            Self::AtMost(limit) => format!("≤ {limit}"),
            Self::AtLeast(floor) => format!("≥ {floor}"),
        }
    }
}

/// The table's figures, in its order.
const FIGURES: [(&str, Goal); 10] = [
    (
        "CPU per streamed token, all in, 500 paced streams (µs)",
        Goal::AtMost(10.0),
    ),
    (
        "CPU per turn outside the tokens, burst (ms)",
        Goal::AtMost(0.25),
    ),
    (
        "added inter-token p99, 1,000 paced streams (ms)",
        Goal::AtMost(5.0),
    ),
    (
        "added TTFT p50, 1,000 paced streams (ms)",
        Goal::AtMost(2.0),
    ),
    (
        "added TTFT p99, 1,000 paced streams (ms)",
        Goal::AtMost(20.0),
    ),
    (
        "largest paced load with added inter-token p99 ≤ 10 ms (streams)",
        Goal::AtLeast(2500.0),
    ),
    (
        "durable turns/s, builtin/echo, burst",
        Goal::AtLeast(5000.0),
    ),
    ("memory per idle open stream (KiB)", Goal::AtMost(24.0)),
    (
        "memory per active stream, 1,000 paced streams (KiB)",
        Goal::AtMost(48.0),
    ),
    (
        "server-side tool step overhead, webhook on loopback (ms)",
        Goal::AtMost(0.3),
    ),
];

/// The paced loads the largest-load search climbs through.
const LADDER: [usize; 7] = [250, 500, 750, 1000, 1500, 2000, 2500];

/// The added inter-token p99 a load may have to count as carried (ms).
const CARRIED_P99_MS: f64 = 10.0;

fn p99(run: &Value) -> f64 {
    run["added_inter_token_ms"]["p99"]
        .as_f64()
        .unwrap_or(f64::INFINITY)
}

/// One round of every figure with the binary now set; the figures in
/// [`FIGURES`] order, and the runs behind them.
async fn round(o: &Options, vendor: &str, binary: Option<&Path>) -> (Vec<f64>, Value) {
    let mut paced_runs: BTreeMap<usize, Value> = BTreeMap::new();
    for n in [500, 1000] {
        eprintln!("  paced {n}");
        paced_runs.insert(n, paced(o, vendor, n).await["confer"].clone());
    }
    // Up the ladder from 500 while the load is carried, else down from it.
    let carried =
        |runs: &BTreeMap<usize, Value>, n: usize| runs.get(&n).map(|r| p99(r) <= CARRIED_P99_MS);
    let start = LADDER.iter().position(|&n| n == 500).unwrap_or(0);
    let mut largest = 0usize;
    if carried(&paced_runs, 500) == Some(true) {
        for &n in &LADDER[start..] {
            if let std::collections::btree_map::Entry::Vacant(slot) = paced_runs.entry(n) {
                eprintln!("  paced {n} (largest load)");
                slot.insert(paced(o, vendor, n).await["confer"].clone());
            }
            if carried(&paced_runs, n) != Some(true) {
                break;
            }
            largest = n;
        }
    } else {
        for &n in LADDER[..start].iter().rev() {
            eprintln!("  paced {n} (largest load)");
            paced_runs.insert(n, paced(o, vendor, n).await["confer"].clone());
            if carried(&paced_runs, n) == Some(true) {
                largest = n;
                break;
            }
        }
    }
    eprintln!("  burst");
    let burst = burst(vendor).await;
    eprintln!("  idle {}", o.idle);
    let idle = idle(vendor, o.idle).await;
    eprintln!("  tool step");
    let data = tempfile::tempdir().unwrap();
    let mut command = support::tool_step::server_command(binary, data.path());
    if PIN.load(Ordering::Relaxed) {
        pin::server_on_cpu0(&mut command);
    }
    let step = support::tool_step::measure(command, data).await;

    let at = |n: usize| &paced_runs[&n];
    let cpu_per_token = {
        let run = at(500);
        let tokens =
            run["tokens_per_s"].as_f64().unwrap_or(0.0) * run["wall_s"].as_f64().unwrap_or(0.0);
        run["server_cpu_s"].as_f64().unwrap_or(0.0) / tokens.max(1.0) * 1e6
    };
    let figures = vec![
        cpu_per_token,
        burst["server_cpu_per_turn_ms"].as_f64().unwrap_or(f64::NAN),
        p99(at(1000)),
        at(1000)["added_ttft_ms"]["p50"]
            .as_f64()
            .unwrap_or(f64::NAN),
        at(1000)["added_ttft_ms"]["p99"]
            .as_f64()
            .unwrap_or(f64::NAN),
        largest as f64,
        burst["turns_per_s"].as_f64().unwrap_or(f64::NAN),
        idle["rss_per_idle_stream_kib"].as_f64().unwrap_or(f64::NAN),
        at(1000)["rss_per_active_stream_kib"]
            .as_f64()
            .unwrap_or(f64::NAN),
        step.overhead.as_secs_f64() * 1000.0,
    ];
    let runs = json!({
        "paced": paced_runs.iter().map(|(n, r)| (n.to_string(), r.clone())).collect::<serde_json::Map<_, _>>(),
        "burst": burst,
        "idle": idle,
        "tool_step_ms": {
            "plain_p50": support::percentile(&step.plain, 0.5).as_secs_f64() * 1000.0,
            "stepped_p50": support::percentile(&step.stepped, 0.5).as_secs_f64() * 1000.0,
            "vendor_call_p50": step.vendor_call.as_secs_f64() * 1000.0,
            "webhook_call_p50": step.webhook_call.as_secs_f64() * 1000.0,
            "overhead": step.overhead.as_secs_f64() * 1000.0,
        },
    });
    (figures, runs)
}

/// Runs [`round`] `o.rounds` times with each binary, alternated, and writes
/// `target/bench/targets.{json,md}`.
pub(crate) async fn targets(o: &Options, vendor: &str, baseline: PathBuf) {
    let o = against_baseline(o, &baseline);
    let started = Instant::now();
    // figures[side][figure] = one value per round.
    let mut figures = vec![vec![Vec::new(); FIGURES.len()]; 2];
    let mut runs = [Vec::new(), Vec::new()];
    for number in 1..=o.rounds {
        for (side, binary) in [(0, Some(baseline.clone())), (1, None)] {
            eprintln!(
                "round {number} of {}: {}",
                o.rounds,
                ["before", "after"][side]
            );
            *SERVER_BINARY.lock().unwrap() = binary.clone();
            let (values, run) = round(&o, vendor, binary.as_deref()).await;
            for (i, value) in values.into_iter().enumerate() {
                figures[side][i].push(value);
            }
            runs[side].push(run);
        }
    }
    *SERVER_BINARY.lock().unwrap() = None;
    let mut table = String::from(
        "| figure | target | before: median [min–max] | after: median [min–max] | change | after |\n|---|---|---|---|---|---|\n",
    );
    for (i, (name, goal)) in FIGURES.iter().enumerate() {
        let before = median(figures[0][i].clone());
        let after = median(figures[1][i].clone());
        let change = match (before, after) {
            (Some(b), Some(a)) if b > 0.0 => format!("{:+.1}%", (a - b) / b * 100.0),
            _ => "–".into(),
        };
        let verdict = match after {
            Some(a) if goal.met(a) => "met",
            Some(_) => "missed",
            None => "–",
        };
        table.push_str(&format!(
            "| {name} | {} | {} | {} | {change} | {verdict} |\n",
            goal.label(),
            summary(&figures[0][i]),
            summary(&figures[1][i]),
        ));
    }
    let results = json!({
        "baseline": baseline,
        "rounds": o.rounds,
        "pinned": o.pin,
        "options": format!("{o:?}"),
        "figures": FIGURES.iter().enumerate().map(|(i, (name, _))| {
            (name.to_string(), json!({"before": figures[0][i], "after": figures[1][i]}))
        }).collect::<serde_json::Map<_, _>>(),
        "runs": {"before": runs[0], "after": runs[1]},
    });
    write_results("targets", &results, &table, started);
}
