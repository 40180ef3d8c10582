//! The turn's Prometheus metric families (`observability.md`, "Metrics"),
//! recorded through the `metrics` facade: nothing is kept unless the
//! server installed a recorder (the exporter behind `GET /metrics`). No
//! label carries a thread, user or key id; `model` takes at most
//! [`MAX_MODELS`] distinct values, later ones are `other`.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use crate::domain::UsageRecord;
use crate::trace::TraceStatus;

/// Distinct `model` label values; later models count as `other`.
pub const MAX_MODELS: usize = 64;

/// Metric names, in one place for the exporter's buckets and the docs.
pub mod names {
    pub const TURNS: &str = "confer_turns_total";
    pub const TURN_DURATION: &str = "confer_turn_duration_seconds";
    pub const TTFT: &str = "confer_ttft_seconds";
    pub const TOKENS: &str = "confer_tokens_total";
    pub const MODEL_CALLS: &str = "confer_model_calls_total";
    pub const TOOL_CALLS: &str = "confer_tool_calls_total";
    pub const QUEUED_SENDS: &str = "confer_queued_sends";
    pub const OPEN_STREAMS: &str = "confer_open_streams";
}

/// Counts one in a gauge while it lives (a queued send, an open stream),
/// so the gauge is right whichever way the thing ends.
pub struct GaugeGuard(&'static str);

impl GaugeGuard {
    /// Adds one to `gauge` until dropped.
    pub fn new(gauge: &'static str) -> Self {
        metrics::gauge!(gauge).increment(1.0);
        Self(gauge)
    }
}

impl Drop for GaugeGuard {
    fn drop(&mut self) {
        metrics::gauge!(self.0).decrement(1.0);
    }
}

/// `model`, or `other` once [`MAX_MODELS`] others have been seen.
fn model_label(model: &str) -> String {
    static SEEN: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    let seen = SEEN.get_or_init(|| Mutex::new(HashSet::new()));
    // A poisoned set only means a panic elsewhere; its contents are fine.
    let mut seen = seen.lock().unwrap_or_else(|p| p.into_inner());
    if seen.contains(model) {
        return model.to_owned();
    }
    if seen.len() < MAX_MODELS {
        seen.insert(model.to_owned());
        return model.to_owned();
    }
    "other".to_owned()
}

/// A model call ended: `outcome` is `ok`, `error` or `stopped`.
pub fn model_call(provider: &str, outcome: &'static str, ttft_seconds: Option<f64>) {
    metrics::counter!(names::MODEL_CALLS, "provider" => provider.to_owned(), "outcome" => outcome)
        .increment(1);
    if let Some(seconds) = ttft_seconds {
        metrics::histogram!(names::TTFT, "provider" => provider.to_owned()).record(seconds);
    }
}

/// A server-side tool call ended.
pub fn tool_call(kind: &'static str, outcome: &'static str) {
    metrics::counter!(names::TOOL_CALLS, "kind" => kind, "outcome" => outcome).increment(1);
}

/// A model call's usage record was written.
pub fn tokens(record: &UsageRecord) {
    let model = model_label(&record.model);
    for (direction, count) in [
        ("input", record.input_tokens),
        ("output", record.output_tokens),
        ("cache_read", record.cache_read_tokens),
        ("cache_write", record.cache_write_tokens),
    ] {
        if count > 0 {
            metrics::counter!(names::TOKENS, "provider" => record.provider.clone(),
                "model" => model.clone(), "direction" => direction)
            .increment(count);
        }
    }
}

/// A turn ended, its answer and trace durable, after `took`.
pub fn turn_ended(status: TraceStatus, took: std::time::Duration) {
    metrics::counter!(names::TURNS, "status" => status.as_str()).increment(1);
    metrics::histogram!(names::TURN_DURATION).record(took.as_secs_f64());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_labels_are_bounded() {
        for i in 0..MAX_MODELS * 2 {
            model_label(&format!("bounded-test-{i}"));
        }
        // Whatever other tests added, the set never grows past the cap.
        assert_eq!(model_label("one-more-model-past-the-cap"), "other");
    }
}
