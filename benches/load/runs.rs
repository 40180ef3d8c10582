//! The other scenarios: burst, idle streams, a long history, recovery of
//! a large store.

use super::*;

/// builtin/echo with no delay: as many durable turns per second as possible.
pub(crate) async fn burst(vendor: &str) -> Value {
    let confer = Confer::start(vendor, None);
    let client = Client::new(&confer.base);
    let agent = client.agent("builtin/echo").await;
    let clients = 32;
    let duration = Duration::from_secs(8);
    let (cpu0, _, _) = confer.usage();
    let started = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|_| {
            let client = client.clone();
            let agent = agent.clone();
            tokio::spawn(async move {
                let thread = client.thread(&agent).await;
                let (mut ok, mut errors) = (0usize, 0usize);
                while started.elapsed() < duration {
                    let sample =
                        turn(&client, Path_::Confer, &thread, "", "hello durable world").await;
                    if sample.ok { ok += 1 } else { errors += 1 }
                }
                (ok, errors)
            })
        })
        .collect();
    let (mut ok, mut errors) = (0, 0);
    for task in tasks {
        let (o, e) = task.await.unwrap();
        ok += o;
        errors += e;
    }
    let wall = started.elapsed().as_secs_f64();
    let (cpu, _, hwm) = confer.usage();
    // Each turn stores two listed messages and two context entries.
    let messages = (ok * 2) as f64;
    let disk = dir_size(&confer.data) as f64;
    json!({
        "clients": clients,
        "turns_per_s": ok as f64 / wall,
        "errors": errors,
        "server_cpu_s": cpu - cpu0,
        "server_cpu_per_turn_ms": (cpu - cpu0) * 1000.0 / ok.max(1) as f64,
        "server_peak_rss_mib": hwm as f64 / 1024.0,
        "disk_bytes_per_message": disk / messages.max(1.0),
    })
}

/// N quiet open streams (the vendor holds every answer): memory per stream.
pub(crate) async fn idle(vendor: &str, n: usize) -> Value {
    let confer = Confer::start(vendor, None);
    let client = Client::new(&confer.base);
    let agent = client.agent("openai/hold").await;
    let mut threads = Vec::with_capacity(n);
    for _ in 0..n {
        threads.push(client.thread(&agent).await);
    }
    // Warm the runtime with finished turns so the baseline is not a cold process.
    let warm_agent = client.agent("openai/paced:2:0").await;
    let warm_thread = client.thread(&warm_agent).await;
    for _ in 0..3 {
        turn(&client, Path_::Confer, &warm_thread, "", "warm").await;
    }
    let (_, rss0, _) = confer.usage();
    let mut opened = Vec::with_capacity(n);
    for thread in &threads {
        let request = client
            .http
            .post(format!("{}/api/threads/{thread}/messages", client.base))
            .bearer_auth(KEY)
            .json(&json!({"content": "wait"}));
        opened.push(tokio::spawn(async move {
            let mut response = request.send().await.ok()?;
            // Read the meta frame, then hold the stream open.
            let _ = response.chunk().await;
            let _ = response.chunk().await;
            Some(response)
        }));
    }
    let mut open = Vec::with_capacity(n);
    for task in opened {
        if let Some(response) = task.await.unwrap() {
            open.push(response);
        }
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (_, rss, _) = confer.usage();
    let opened = open.len();
    let per_stream = rss.saturating_sub(rss0) as f64 / opened.max(1) as f64;
    // The server goes first, so a heap profiler (CONFER_BENCH_WRAPPER) sees
    // every stream's memory as still live when it stops.
    drop(confer);
    drop(open);
    json!({"streams": n, "open": opened, "rss_before_kib": rss0, "rss_open_kib": rss,
           "rss_per_idle_stream_kib": per_stream})
}

/// Writes `count` messages into a thread directly through the store.
pub(crate) fn fill_thread(data: &Path, thread: &str, count: usize) {
    use confer::store::Store;
    use confer_actors::{
        ContextMessage, ContextRole, Message, MessageId, Role, ThreadAppend, ThreadId,
    };
    let store = Store::open(data).unwrap();
    let thread: ThreadId = thread.parse().unwrap();
    for i in 0..count {
        let role = if i % 2 == 0 {
            Role::User
        } else {
            Role::Assistant
        };
        let context_role = if i % 2 == 0 {
            ContextRole::User
        } else {
            ContextRole::Assistant
        };
        let text = format!("message number {i} of a long conversation about load");
        let message = Message {
            id: MessageId::new(),
            thread_id: thread,
            seq: 0,
            role,
            content: text.clone(),
            sender_name: None,
            sender_id: None,
            created_at: chrono::Utc::now(),
            citations: Vec::new(),
        };
        let write = ThreadAppend {
            listed: Some(message),
            context: vec![ContextMessage::text(context_role, text)],
            ..ThreadAppend::default()
        };
        store.with_inner(|s| s.append(thread, write)).unwrap();
    }
    store.flush_now().unwrap();
}

/// A thread with 10,000 messages: list a page at offset 0 and at the end; send.
pub(crate) async fn history(vendor: &str) -> Value {
    let confer = Confer::start(vendor, None);
    let client = Client::new(&confer.base);
    let agent = client.agent("builtin/echo").await;
    let thread = client.thread(&agent).await;
    let dir = confer.kill();
    fill_thread(&dir.path().join("data"), &thread, 10_000);
    let confer = Confer::start(vendor, Some(dir));
    let client = Client::new(&confer.base);
    let page = |offset: usize| {
        let client = client.clone();
        let thread = thread.clone();
        async move {
            let mut times = Vec::new();
            for _ in 0..50 {
                let (t, body) = client
                    .get(&format!(
                        "/api/threads/{thread}/messages?offset={offset}&limit=100"
                    ))
                    .await;
                assert_eq!(body["total"], 10_000);
                times.push(t.as_micros() as u64);
            }
            percentiles(times)
        }
    };
    let first = page(0).await;
    let last = page(9_900).await;
    let mut sends = Vec::new();
    let mut cold = None;
    for i in 0..20 {
        let started = Instant::now();
        let sample = turn(&client, Path_::Confer, &thread, "", "one more").await;
        assert!(sample.ok);
        let t = started.elapsed().as_micros() as u64;
        if i == 0 {
            cold = Some(t as f64 / 1000.0)
        } else {
            sends.push(t)
        }
    }
    json!({"messages": 10_000, "page_offset_0_ms": first, "page_offset_9900_ms": last,
           "send_cold_ms": cold, "send_warm_ms": percentiles(sends)})
}

/// Store `count` messages, kill -9 right after an acknowledged turn, restart.
pub(crate) async fn recovery(vendor: &str, count: usize) -> Value {
    let confer = Confer::start(vendor, None);
    let client = Client::new(&confer.base);
    let agent = client.agent("builtin/echo").await;
    let thread = client.thread(&agent).await;
    let dir = confer.kill();
    let filled = Instant::now();
    fill_thread(&dir.path().join("data"), &thread, count);
    let fill_s = filled.elapsed().as_secs_f64();
    let confer = Confer::start(vendor, Some(dir));
    let client = Client::new(&confer.base);
    let sample = turn(&client, Path_::Confer, &thread, "", "acknowledged").await;
    let acknowledged = sample.message_id.expect("done carries a messageId");
    let dir = confer.kill(); // SIGKILL right after done
    let restarted = Instant::now();
    let confer = Confer::start(vendor, Some(dir));
    let client = Client::new(&confer.base);
    loop {
        if client
            .http
            .get(format!("{}/healthz", client.base))
            .send()
            .await
            .is_ok()
        {
            break;
        }
    }
    let healthy = restarted.elapsed().as_secs_f64();
    let total = count + 2;
    let (_, page) = client
        .get(&format!(
            "/api/threads/{thread}/messages?offset={}&limit=10",
            total - 1
        ))
        .await;
    let listed = page["messages"][0]["id"].as_str() == Some(acknowledged.as_str());
    json!({"messages": count, "fill_s": fill_s, "healthz_after_restart_s": healthy,
           "last_acknowledged_listed_s": restarted.elapsed().as_secs_f64(), "acknowledged_found": listed})
}
