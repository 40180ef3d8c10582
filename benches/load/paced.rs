//! The paced scenario: N streams at the vendor's pace, with the direct
//! path as the baseline.

use super::*;

/// N streams, each on its own thread, `turns` turns each, paced by the vendor.
pub(crate) async fn paced(o: &Options, vendor: &str, n: usize) -> Value {
    let model = format!("paced:{}:{}", o.tokens, o.interval_ms);
    let anthropic = o.vendor == "anthropic";
    let mut runs = BTreeMap::new();
    for path in [Path_::Direct, Path_::Confer] {
        if path == Path_::Direct && !o.direct {
            continue;
        }
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
        let threads0 = confer
            .as_ref()
            .map(|c| thread_cpu(c.child.id()))
            .unwrap_or_default();
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
            run["busiest_thread_cpu_s"] = json!(busiest_thread_since(confer.child.id(), &threads0));
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
    // Without the direct path (`--baseline`) its figures are null.
    let direct = runs.remove("direct").unwrap_or_default();
    let ratio = |key: &str, p: &str| {
        let c = runs["confer"][key][p].as_f64().unwrap_or(0.0);
        let d = direct[key][p].as_f64().unwrap_or(0.0);
        if d > 0.0 { json!(c / d) } else { json!(null) }
    };
    json!({
        "streams": n,
        "confer": runs["confer"],
        "direct": direct,
        "ratio_inter_token_p99": ratio("added_inter_token_ms", "p99"),
        "ratio_ttft_p50": ratio("added_ttft_ms", "p50"),
    })
}
