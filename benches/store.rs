//! Store microbenchmarks: one durable write (write + group-commit flush) alone
//! and with 32 concurrent writers sharing fsyncs, and a history page read.

// A benchmark aborts on setup failure: there is nothing to measure then.
#![allow(clippy::expect_used)]

use std::hint::black_box;

use chrono::Utc;
use confer::store::Store;
use confer_actors::{Message, MessageId, Role, ThreadAppend, ThreadId};
use criterion::{Criterion, criterion_group, criterion_main};

fn message(thread: ThreadId, text: &str) -> Message {
    Message {
        id: MessageId::new(),
        thread_id: thread,
        seq: 0,
        role: Role::User,
        content: text.to_owned(),
        sender_name: None,
        sender_id: None,
        created_at: Utc::now(),
        citations: Vec::new(),
    }
}

/// A write of one listed message.
fn listed(message: Message) -> ThreadAppend {
    ThreadAppend {
        listed: Some(message),
        ..ThreadAppend::default()
    }
}

fn store_benches(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(dir.path()).expect("store");
    let thread = ThreadId::new();

    c.bench_function("append + flush (1 writer)", |b| {
        b.to_async(&runtime).iter(|| {
            let store = store.clone();
            async move {
                store
                    .write(move |s| s.append(thread, listed(message(thread, "hello there"))))
                    .await
                    .expect("write")
            }
        });
    });

    c.bench_function("append + flush (32 concurrent writers)", |b| {
        b.to_async(&runtime).iter(|| {
            let store = store.clone();
            async move {
                let writes = (0..32).map(|_| {
                    let store = store.clone();
                    let thread = ThreadId::new();
                    tokio::spawn(async move {
                        store
                            .write(move |s| s.append(thread, listed(message(thread, "hi"))))
                            .await
                    })
                });
                for write in futures_util::future::join_all(writes).await {
                    write.expect("join").expect("write");
                }
            }
        });
    });

    let long = ThreadId::new();
    for i in 0..10_000 {
        store
            .with_inner(|s| s.append(long, listed(message(long, &format!("message {i}")))))
            .expect("append");
    }
    c.bench_function("history page of 100 at offset 9900 (10k messages)", |b| {
        b.iter(|| {
            black_box(
                store
                    .with_inner(|s| s.messages(long, 9_900, 100))
                    .expect("page"),
            )
        });
    });
}

/// `GET /api/analytics?period=90d` of an org with a million turns over
/// those 90 days (5 agents, 2 models): reading the day aggregates and
/// computing the answer (docs/performance-history.md).
fn analytics_benches(c: &mut Criterion) {
    use confer::observability::aggregate::DayAggregate;
    use confer::observability::analytics::{Period, compute};
    use confer::observability::sketch::{DdSketch, Hll};
    use confer_actors::{AgentId, OrgId};

    const TURNS: usize = 1_000_000;
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(dir.path()).expect("store");
    let org = OrgId::new();
    let agents: Vec<AgentId> = (0..5).map(|_| AgentId::new()).collect();
    let models = ["gpt-4.1", "claude-sonnet-4-5"];
    let period = Period::parse("90d", Utc::now()).expect("period");
    let keys = 90 * agents.len() * models.len();
    let mut turn = 0usize;
    for day in period.first()..=period.last {
        for agent in &agents {
            for model in models {
                let mut aggregate = DayAggregate::default();
                for _ in 0..TURNS / keys {
                    turn += 1;
                    aggregate.merge(&DayAggregate {
                        turns: 1,
                        input_tokens: 1200,
                        output_tokens: 300,
                        cost_nanos: 7_000_000,
                        duration_us: 800_000 + (turn % 1000) as u64 * 1000,
                        users: Hll::of(format!("user-{}", turn % 5000).as_bytes()),
                        threads: Hll::of(format!("thread-{}", turn % 50_000).as_bytes()),
                        durations: DdSketch::of(800.0 + (turn % 1000) as f64),
                        ..DayAggregate::default()
                    });
                }
                store
                    .with_inner(|s| s.merge_day_aggregate(org, day, *agent, model, &aggregate))
                    .expect("merge");
            }
        }
    }
    store.flush_now().expect("flush");
    c.bench_function("analytics 90d, 1M turns (read + compute)", |b| {
        b.iter(|| {
            let entries = store
                .with_inner(|s| s.trace_days(org, period.first(), period.last))
                .expect("days");
            black_box(compute(period, entries, |_| String::new()))
        });
    });
}

/// `GET /api/logs` on a store of a million traces over 90 days (one org,
/// 5 agents, 5,000 users, 50,000 threads): a page of the org (the newest
/// day's index), of a user (200 traces, about a quarter of the days), of a
/// thread whose 20 traces are spread over the 90 days (every day's index),
/// and one trace by id (docs/performance-history.md).
fn logs_benches(c: &mut Criterion) {
    use confer::store::traces::{TraceQuery, TraceScope};
    use confer_actors::trace::{SpanAttributes, SpanKind, Stamp, TraceRecorder, TraceStart};
    use confer_actors::{
        AgentId, Metadata, OrgId, RunningTraces, TraceId, TraceRecord, TraceStatus,
    };

    let traces: usize = std::env::var("LOGS_BENCH_TRACES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000_000);
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(dir.path()).expect("store");
    let org = OrgId::new();
    let agents: Vec<AgentId> = (0..5).map(|_| AgentId::new()).collect();
    let threads: Vec<ThreadId> = (0..50_000).map(|_| ThreadId::new()).collect();
    let rare = ThreadId::new();
    // A finished turn's trace: admission, resolver, one model call, store.
    let template = {
        let running = std::sync::Arc::new(RunningTraces::default());
        let mut recorder = TraceRecorder::start(
            TraceStart {
                org,
                agent: agents[0],
                thread: threads[0],
                user_id: "user-0".into(),
                model: "openai/gpt-4.1".into(),
                turn: 1,
                if_busy: None,
                otel_trace_id: None,
                started: Stamp::now(),
                payloads: false,
                run: None,
                link: None,
            },
            &running,
        );
        let root = recorder.root();
        for kind in [SpanKind::Admission, SpanKind::Resolver, SpanKind::Llm] {
            let attributes = SpanAttributes {
                provider: Some("openai".into()),
                model: Some("gpt-4.1".into()),
                key_source: Some("platform".into()),
                input_tokens: Some(1200),
                output_tokens: Some(300),
                ..SpanAttributes::default()
            };
            recorder.span(root, kind, "step", Stamp::now(), attributes, None);
        }
        recorder.finish(
            TraceStatus::Ok,
            None,
            "openai/gpt-4.1".into(),
            Metadata::new(),
        )
    };
    let now = Utc::now();
    let span = chrono::TimeDelta::days(90)
        .num_microseconds()
        .expect("90 days") as u64;
    let mut probe = None;
    for i in 0..traces {
        let started =
            now - chrono::TimeDelta::microseconds((span / traces as u64 * i as u64) as i64);
        let ts = uuid::Timestamp::from_unix(
            uuid::NoContext,
            started.timestamp() as u64,
            started.timestamp_subsec_nanos(),
        );
        let mut record: TraceRecord = template.clone();
        let trace = &mut record.trace;
        trace.id = TraceId::from_bytes(*uuid::Uuid::new_v7(ts).as_bytes());
        trace.started_at = started;
        trace.agent_id = agents[i % agents.len()];
        trace.user_id = format!("user-{}", i % 5_000);
        trace.thread_id = if i % (traces / 20) == 7 {
            rare
        } else {
            threads[i % threads.len()]
        };
        if i == traces / 2 {
            probe = Some(trace.id);
        }
        store.with_inner(|s| s.store_trace(record)).expect("trace");
    }
    store.flush_now().expect("flush");
    let label = |what: &str| format!("logs: {what}, {traces} traces over 90 days");
    for (what, scope) in [
        ("a page of the org", TraceScope::Org(org)),
        ("a page of a user", TraceScope::User(org, "user-42".into())),
        ("the 20 traces of a thread", TraceScope::Thread(rare)),
    ] {
        c.bench_function(&label(what), |b| {
            b.iter(|| {
                black_box(
                    store
                        .with_inner(|s| s.traces(&scope, &TraceQuery::newest(50)))
                        .expect("page"),
                )
            });
        });
    }
    let probe = probe.expect("a probe");
    c.bench_function(&label("one trace by id"), |b| {
        b.iter(|| black_box(store.with_inner(|s| s.trace(probe)).expect("trace")));
    });
}

criterion_group!(benches, store_benches, analytics_benches);
criterion_group! {
    name = logs;
    config = Criterion::default().sample_size(10);
    targets = logs_benches
}
criterion_main!(benches, logs);
