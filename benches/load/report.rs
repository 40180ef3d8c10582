//! The markdown table of a run's results.

use super::*;

pub(crate) fn fmt(v: &Value) -> String {
    match v {
        Value::Number(n) => format!("{:.3}", n.as_f64().unwrap_or(0.0)),
        Value::Null => "–".into(),
        other => other.to_string(),
    }
}

pub(crate) fn table(results: &Value) -> String {
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
            "| {scenario} | server CPU s (busiest thread), client CPU s, peak RSS MiB | {} ({}) , {} , {} |\n",
            fmt(&c["server_cpu_s"]),
            fmt(&c["busiest_thread_cpu_s"]),
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
    let w = &results["webhook"];
    if !w.is_null() {
        out.push_str(&format!(
            "| webhook | runs/s to succeeded ({} senders), accepted, queue-full answers, errors | {} , {} , {} , {} |\n",
            w["senders"],
            fmt(&w["runs_per_s"]),
            w["accepted"],
            w["queue_full_answers"],
            w["errors"]
        ));
        out.push_str(&format!(
            "| webhook | server CPU per run (ms), peak RSS MiB | {} , {} |\n",
            fmt(&w["server_cpu_per_run_ms"]),
            fmt(&w["server_peak_rss_mib"])
        ));
        if let Some(turns) = b["turns_per_s"].as_f64() {
            let runs = w["runs_per_s"].as_f64().unwrap_or(0.0);
            out.push_str(&format!(
                "| webhook | runs/s as a share of durable turns/s (target ≥ 25%) | {:.1}% |\n",
                runs * 100.0 / turns
            ));
        }
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
