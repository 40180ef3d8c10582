//! `--baseline`: this build against an older one on the paced loads, runs
//! alternated so that both see the same machine, reported as medians and
//! ranges over the rounds.

use super::*;

/// How a measure is read from a run's `confer` figures.
type Read = fn(&Value) -> Option<f64>;

/// The compared measures: issue 11's list (per-token CPU, latency, memory)
/// and the throughput that explains them.
const MEASURES: [(&str, Read); 9] = [
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

/// Each paced load's runs: `[baseline, this build]`.
type Runs = BTreeMap<usize, [Vec<Value>; 2]>;

/// Runs every paced load `o.rounds` times with each binary, alternated,
/// and writes `target/bench/compare.{json,md}`.
pub(crate) async fn compare(o: &Options, vendor: &str, baseline: PathBuf) {
    if !baseline.is_file() {
        eprintln!("--baseline {}: no such file", baseline.display());
        std::process::exit(2);
    }
    let o = Options {
        direct: false,
        ..o.clone()
    };
    let started = Instant::now();
    let mut runs = Runs::new();
    for round in 1..=o.rounds {
        for &n in &o.paced {
            for (side, binary) in [(0, Some(baseline.clone())), (1, None)] {
                let who = ["baseline", "this build"][side];
                eprintln!("round {round} of {}: {n} streams, {who}", o.rounds);
                *SERVER_BINARY.lock().unwrap() = binary;
                let run = paced(&o, vendor, n).await;
                runs.entry(n).or_default()[side].push(run["confer"].clone());
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
        "paced": runs
            .iter()
            .map(|(n, [base, head])| (n.to_string(), json!({"baseline": base, "head": head})))
            .collect::<serde_json::Map<_, _>>(),
    });
    write_results("compare", &results, &table, started);
}

/// The middle value (the mean of the two middle ones for an even count).
fn median(mut values: Vec<f64>) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(values[n / 2]),
        _ => Some((values[n / 2 - 1] + values[n / 2]) / 2.0),
    }
}

/// `median [min–max]` of `values`.
fn summary(values: &[f64]) -> String {
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

pub(crate) fn compare_table(runs: &Runs) -> String {
    let mut out = String::from(
        "| streams | measure | baseline: median [min–max] | this build: median [min–max] | change of medians |\n|---|---|---|---|---|\n",
    );
    for (n, sides) in runs {
        for (label, read) in MEASURES {
            let [base, head] = sides
                .each_ref()
                .map(|runs| runs.iter().filter_map(read).collect::<Vec<f64>>());
            let change = match (median(base.clone()), median(head.clone())) {
                (Some(b), Some(h)) if b > 0.0 => format!("{:+.1}%", (h - b) / b * 100.0),
                _ => "–".into(),
            };
            out.push_str(&format!(
                "| {n} | {label} | {} | {} | {change} |\n",
                summary(&base),
                summary(&head)
            ));
        }
    }
    out
}
