//! `--baseline`: this build against an older one on the paced loads, the
//! burst and the idle streams, runs alternated so that both see the same
//! machine, reported as medians and ranges over the rounds.

use super::*;

/// How a measure is read from a run's figures.
type Read = fn(&Value) -> Option<f64>;

/// The paced loads' measures (read from the `confer` side): issue 11's
/// list (per-token CPU, latency, memory) and what explains them.
const PACED: &[(&str, Read)] = &[
    ("added inter-token p50 (ms)", |c| {
        c["added_inter_token_ms"]["p50"].as_f64()
    }),
    ("added inter-token p99 (ms)", |c| {
        c["added_inter_token_ms"]["p99"].as_f64()
    }),
    ("added TTFT p50 (ms)", |c| {
        c["added_ttft_ms"]["p50"].as_f64()
    }),
    ("added TTFT p99 (ms)", |c| {
        c["added_ttft_ms"]["p99"].as_f64()
    }),
    ("server CPU (s)", |c| c["server_cpu_s"].as_f64()),
    ("busiest server thread's CPU (s)", |c| {
        c["busiest_thread_cpu_s"].as_f64()
    }),
    ("server CPU per token, all in (µs)", |c| {
        let tokens = c["tokens_per_s"].as_f64()? * c["wall_s"].as_f64()?;
        (tokens > 0.0).then(|| c["server_cpu_s"].as_f64().unwrap_or(0.0) / tokens * 1e6)
    }),
    ("RSS per active stream (KiB)", |c| {
        c["rss_per_active_stream_kib"].as_f64()
    }),
    ("turns/s", |c| c["turns_per_s"].as_f64()),
];

/// The burst's measures: a turn's CPU outside its tokens.
const BURST: &[(&str, Read)] = &[
    ("server CPU per turn (ms)", |c| {
        c["server_cpu_per_turn_ms"].as_f64()
    }),
    ("durable turns/s", |c| c["turns_per_s"].as_f64()),
    ("peak RSS (MiB)", |c| c["server_peak_rss_mib"].as_f64()),
];

/// The idle streams' measure.
const IDLE: &[(&str, Read)] = &[("RSS per idle open stream (KiB)", |c| {
    c["rss_per_idle_stream_kib"].as_f64()
})];

/// A compared scenario, in the order the table lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Scenario {
    Paced(usize),
    Burst,
    Idle(usize),
}

impl Scenario {
    fn label(self) -> String {
        match self {
            Self::Paced(n) => format!("paced {n}"),
            Self::Burst => "burst".into(),
            Self::Idle(n) => format!("idle {n}"),
        }
    }

    fn measures(self) -> &'static [(&'static str, Read)] {
        match self {
            Self::Paced(_) => PACED,
            Self::Burst => BURST,
            Self::Idle(_) => IDLE,
        }
    }

    /// One run of the scenario with the server binary now set.
    async fn run(self, o: &Options, vendor: &str) -> Value {
        match self {
            Self::Paced(n) => paced(o, vendor, n).await["confer"].clone(),
            Self::Burst => burst(vendor).await,
            Self::Idle(n) => idle(vendor, n).await,
        }
    }
}

/// The options of a run against `baseline` (which must exist): without the
/// direct path, which would only measure the mock twice.
pub(crate) fn against_baseline(o: &Options, baseline: &Path) -> Options {
    if !baseline.is_file() {
        eprintln!("--baseline {}: no such file", baseline.display());
        std::process::exit(2);
    }
    Options {
        direct: false,
        ..o.clone()
    }
}

/// Each scenario's runs: `[baseline, this build]`.
type Runs = BTreeMap<Scenario, [Vec<Value>; 2]>;

/// Runs every wanted scenario (`--only`: paced, burst, idle) `o.rounds`
/// times with each binary, alternated, and writes
/// `target/bench/compare.{json,md}`.
pub(crate) async fn compare(o: &Options, vendor: &str, baseline: PathBuf) {
    let o = against_baseline(o, &baseline);
    let wants = |name: &str| o.wants(name);
    let mut scenarios = Vec::new();
    if wants("paced") {
        scenarios.extend(o.paced.iter().map(|&n| Scenario::Paced(n)));
    }
    if wants("burst") {
        scenarios.push(Scenario::Burst);
    }
    if wants("idle") {
        scenarios.push(Scenario::Idle(o.idle));
    }
    let started = Instant::now();
    let mut runs = Runs::new();
    for round in 1..=o.rounds {
        for &scenario in &scenarios {
            for (side, binary) in [(0, Some(baseline.clone())), (1, None)] {
                let who = ["baseline", "this build"][side];
                eprintln!("round {round} of {}: {}, {who}", o.rounds, scenario.label());
                *SERVER_BINARY.lock().unwrap() = binary;
                let run = scenario.run(&o, vendor).await;
                runs.entry(scenario).or_default()[side].push(run);
            }
        }
    }
    *SERVER_BINARY.lock().unwrap() = None;
    let table = compare_table(&runs);
    let results = json!({
        "baseline": baseline,
        "rounds": o.rounds,
        "pinned": o.pin,
        "options": format!("{o:?}"),
        "runs": runs
            .iter()
            .map(|(scenario, [base, head])| {
                (scenario.label(), json!({"baseline": base, "head": head}))
            })
            .collect::<serde_json::Map<_, _>>(),
    });
    write_results("compare", &results, &table, started);
}

/// The middle value (the mean of the two middle ones for an even count).
pub(crate) fn median(mut values: Vec<f64>) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(values[n / 2]),
        _ => Some((values[n / 2 - 1] + values[n / 2]) / 2.0),
    }
}

/// `median [min–max]` of `values`.
pub(crate) fn summary(values: &[f64]) -> String {
    let (min, max) = values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(*v), hi.max(*v))
        });
    match median(values.to_vec()) {
        Some(m) => format!("{m:.3} [{min:.3}–{max:.3}]"),
        None => "–".into(),
    }
}

fn compare_table(runs: &Runs) -> String {
    let mut out = String::from(
        "| scenario | measure | baseline: median [min–max] | this build: median [min–max] | change of medians |\n|---|---|---|---|---|\n",
    );
    for (scenario, sides) in runs {
        for (label, read) in scenario.measures() {
            let [base, head] = sides
                .each_ref()
                .map(|runs| runs.iter().filter_map(read).collect::<Vec<f64>>());
            let change = match (median(base.clone()), median(head.clone())) {
                (Some(b), Some(h)) if b > 0.0 => format!("{:+.1}%", (h - b) / b * 100.0),
                _ => "–".into(),
            };
            out.push_str(&format!(
                "| {} | {label} | {} | {} | {change} |\n",
                scenario.label(),
                summary(&base),
                summary(&head)
            ));
        }
    }
    out
}
