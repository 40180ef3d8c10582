//! `GET /metrics` (`observability.md`, "Metrics"): the Prometheus exporter
//! of the `metrics` facade (metrics-exporter-prometheus, no listener of its
//! own), the histogram buckets of the contract, the HTTP request metrics
//! (a middleware labelled by the matched route template), the gauges read
//! at each scrape and the process collector (CPU, RSS, open descriptors).

use std::sync::OnceLock;
use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use confer_actors::turn_metrics::names;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

/// HTTP requests, by route template, method and status.
pub const HTTP_REQUESTS: &str = "confer_http_requests_total";
/// HTTP request durations, by route template.
pub const HTTP_DURATION: &str = "confer_http_request_duration_seconds";
/// Turns running now.
pub const ACTIVE_TURNS: &str = "confer_active_turns";
/// Thread actors alive now.
pub const LIVE_ACTORS: &str = "confer_live_thread_actors";
/// Requests refused by a rate limit.
pub const RATE_LIMITED: &str = "confer_rate_limited_total";
/// Store commits (the group-committed flush), in seconds.
pub const STORE_COMMIT: &str = "confer_store_commit_seconds";
/// OTLP spans dropped because the export queue was full.
pub const OTEL_DROPPED: &str = "confer_otel_dropped_spans_total";

/// Buckets of the turn and HTTP durations (seconds).
const DURATION_BUCKETS: [f64; 12] = [
    0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];
/// Buckets of the time to first token (seconds).
const TTFT_BUCKETS: [f64; 9] = [0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0];
/// Buckets of a store commit (seconds).
const COMMIT_BUCKETS: [f64; 10] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0,
];

/// The process's exporter: installed once as the global recorder.
static EXPORTER: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// Installs the exporter as the process's metrics recorder (once; later
/// calls return the same handle). `None` if another recorder was set.
pub fn install() -> Option<PrometheusHandle> {
    EXPORTER
        .get_or_init(|| {
            let builder = [
                (names::TURN_DURATION, &DURATION_BUCKETS[..]),
                (HTTP_DURATION, &DURATION_BUCKETS[..]),
                (names::TTFT, &TTFT_BUCKETS[..]),
                (STORE_COMMIT, &COMMIT_BUCKETS[..]),
                (
                    crate::computer::metrics::START_SECONDS,
                    &DURATION_BUCKETS[..],
                ),
            ]
            .into_iter()
            .try_fold(PrometheusBuilder::new(), |builder, (name, buckets)| {
                builder.set_buckets_for_metric(Matcher::Full(name.to_owned()), buckets)
            });
            let recorder = match builder {
                Ok(builder) => builder.build_recorder(),
                Err(error) => {
                    tracing::error!(%error, "the metrics buckets are invalid; no metrics");
                    return None;
                }
            };
            let handle = recorder.handle();
            if metrics::set_global_recorder(recorder).is_err() {
                tracing::warn!("a metrics recorder was already installed; /metrics stays empty");
            }
            describe();
            keep_up(handle.clone());
            Some(handle)
        })
        .clone()
}

/// How often histogram samples are folded into their buckets.
const UPKEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// Folds the histograms' recorded samples into their buckets every
/// [`UPKEEP_EVERY`]: the exporter queues each sample until then, so without
/// it a server nobody scrapes would hold every sample it ever recorded.
fn keep_up(handle: PrometheusHandle) {
    let spawned = std::thread::Builder::new()
        .name("metrics-upkeep".into())
        .spawn(move || {
            loop {
                std::thread::sleep(UPKEEP_EVERY);
                handle.run_upkeep();
            }
        });
    if let Err(error) = spawned {
        tracing::error!(%error, "no metrics upkeep thread; samples wait for a scrape");
    }
}

/// The families' help texts.
fn describe() {
    metrics::describe_counter!(HTTP_REQUESTS, "HTTP requests by route, method and status");
    metrics::describe_histogram!(HTTP_DURATION, "HTTP request durations by route");
    metrics::describe_counter!(names::TURNS, "Finished turns by status");
    metrics::describe_histogram!(names::TURN_DURATION, "Turn durations, start to done");
    metrics::describe_histogram!(names::TTFT, "Time from a model call to its first token");
    metrics::describe_gauge!(ACTIVE_TURNS, "Turns running now");
    metrics::describe_gauge!(names::OPEN_STREAMS, "SSE streams open now");
    metrics::describe_gauge!(names::QUEUED_SENDS, "Sends waiting behind a running turn");
    metrics::describe_counter!(names::TOKENS, "Tokens by provider, model and direction");
    metrics::describe_counter!(names::MODEL_CALLS, "Model calls by provider and outcome");
    metrics::describe_counter!(
        names::TOOL_CALLS,
        "Server-side tool calls by kind and outcome"
    );
    metrics::describe_histogram!(STORE_COMMIT, "Group-committed store flushes");
    metrics::describe_gauge!(LIVE_ACTORS, "Thread actors alive now");
    metrics::describe_counter!(RATE_LIMITED, "Requests refused by a rate limit");
    crate::computer::metrics::describe();
    // Present from the start, so a scrape shows every family.
    metrics::counter!(RATE_LIMITED).absolute(0);
    metrics::counter!(OTEL_DROPPED).absolute(0);
    metrics::gauge!(names::OPEN_STREAMS).increment(0.0);
    metrics::gauge!(names::QUEUED_SENDS).increment(0.0);
}

/// The scrape: the gauges read now, the process's figures, then every family.
pub fn render(handle: &PrometheusHandle, active_turns: usize, live_actors: usize) -> String {
    metrics::gauge!(ACTIVE_TURNS).set(active_turns as f64);
    metrics::gauge!(LIVE_ACTORS).set(live_actors as f64);
    process_collector().collect();
    handle.render()
}

fn process_collector() -> &'static metrics_process::Collector {
    static COLLECTOR: OnceLock<metrics_process::Collector> = OnceLock::new();
    COLLECTOR.get_or_init(|| {
        let collector = metrics_process::Collector::default();
        collector.describe();
        collector
    })
}

/// Middleware: counts and times each request under its route template
/// (`/api/threads/{thread_id}/messages`, or `unmatched`). A stream is timed
/// to its response head, not to its end.
pub async fn request_metrics(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody + 'static>, actix_web::Error> {
    let began = Instant::now();
    let method = req.method().as_str().to_owned();
    let response = next.call(req).await?;
    // Read once routed: the router's own match is looked up, where before
    // routing every pattern of the route table would be tried again.
    let route = response
        .request()
        .match_pattern()
        .unwrap_or_else(|| "unmatched".to_owned());
    let status = response.status().as_u16().to_string();
    metrics::counter!(HTTP_REQUESTS, "route" => route.clone(), "method" => method, "status" => status)
        .increment(1);
    metrics::histogram!(HTTP_DURATION, "route" => route).record(began.elapsed().as_secs_f64());
    Ok(response)
}
