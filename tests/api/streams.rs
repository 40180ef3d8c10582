//! Turns own their frames; clients only read them (`streams.md`): a reader
//! that never reads delays nothing, stop is prompt whatever the readers do,
//! a lost connection resumes with `Last-Event-ID`, watchers follow every
//! turn, and the busy policy refuses before any stream starts.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use crate::common::{Api, EventStream, Frame, Options, Server, done_of};
use crate::durability::openai_answer;
use crate::mock::{Mock, Reply};

async fn vendor_server(extra: &[(&str, &str)]) -> (Mock, Server) {
    let vendor = Mock::start("/v1").await;
    let mut options = Options::default()
        .env("OPENAI_BASE_URL", &vendor.base)
        .env("OPENAI_API_KEY", "sk-platform");
    for (name, value) in extra {
        options = options.env(name, value);
    }
    (vendor, Server::start_with(options))
}

/// A server on a mock OpenAI vendor, its admin client, and a thread of an
/// agent that uses the vendor.
async fn vendor_thread(extra: &[(&str, &str)]) -> (Mock, Server, Api, String) {
    let (vendor, server) = vendor_server(extra).await;
    let api = server.admin();
    let agent = vendor_agent(&api).await;
    let thread = api.thread(&agent, json!({})).await;
    (vendor, server, api, thread)
}

async fn vendor_agent(api: &Api) -> String {
    api.agent_with(json!({"name": "Streams", "defaultModel": "openai/gpt-4.1"}))
        .await
}

/// A send from a raw socket with a 4 KiB receive buffer that never reads
/// its answer: the connection stays open, the server's writes back up.
async fn stalled_send(server: &Server, thread: &str, content: &str) -> tokio::net::TcpStream {
    let address: std::net::SocketAddr = server.base.trim_start_matches("http://").parse().unwrap();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(address).await.unwrap();
    let body = json!({"content": content}).to_string();
    let request = format!(
        "POST /api/threads/{thread}/messages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        crate::common::BOOTSTRAP_KEY,
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    stream
}

/// Whether the kernel still has the server's end of a loopback connection
/// (local port `server`, remote port `client`) in `/proc/net/tcp`.
fn server_side_open(server: u16, client: u16) -> bool {
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap();
    let port =
        |address: &str| u16::from_str_radix(address.rsplit(':').next().unwrap(), 16).unwrap();
    table.lines().skip(1).any(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        port(fields[1]) == server && port(fields[2]) == client
    })
}

/// Reads a follow stream until the `done` of turn `turn`; the frames read.
async fn until_done_of(watch: &mut crate::common::EventStream, turn: u64) -> Vec<Frame> {
    let mut frames = Vec::new();
    let prefix = format!("{turn}.");
    loop {
        let frame = watch
            .next_within(Duration::from_secs(60))
            .await
            .expect("the watch stream stays open");
        let mine = frame
            .id
            .as_deref()
            .is_some_and(|id| id.starts_with(&prefix))
            || (frame.event == "turn_gap" && frame.data["turn"] == turn);
        let end = mine && (frame.event == "done" || frame.event == "turn_gap");
        frames.push(frame);
        if end {
            return frames;
        }
    }
}

#[tokio::test]
async fn a_reader_that_never_reads_delays_neither_the_turn_nor_the_next_send() {
    let (vendor, server, api, thread) = vendor_thread(&[]).await;
    // 8 MiB of answer: far more than the stalled socket's buffers hold.
    let (big, _) = openai_answer(512, 16 * 1024);
    vendor.push(Reply::stream(big));
    let (small, small_text) = openai_answer(2, 64);
    vendor.push(Reply::stream(small));

    let mut watch = api.open_watch(&thread, "?follow=true", None).await;
    assert_eq!(watch.status, 200);
    let first = watch.next_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!(first.event, "watching");
    assert_eq!(first.id.as_deref(), Some("0.0"));

    let _stalled = stalled_send(&server, &thread, "a long answer, please").await;
    let started = Instant::now();
    // The stalled send is turn 1 once the watcher sees its `meta`.
    let meta = watch.next_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!(
        (meta.event.as_str(), meta.id.as_deref()),
        ("meta", Some("1.1"))
    );
    // The next send (queued behind the stalled one's turn) is answered.
    let next = api.say(&thread, json!({"content": "and then?"})).await;
    let done = done_of(&next);
    assert_eq!(done["ok"], true);
    assert!(
        done["content"] == small_text.as_str(),
        "turn 2 got the small answer"
    );
    assert!(
        next.iter()
            .all(|f| f.id.as_deref().is_none_or(|id| id.starts_with("2."))),
        "the second send is turn 2"
    );
    println!(
        "turn 1 (8 MiB to a stalled reader) and turn 2 done in {:?}",
        started.elapsed()
    );
    // The watcher saw turn 1 end (or, if it fell behind its 1 MiB window,
    // was told it missed it), then turn 2 from its `meta`.
    let first_turn = until_done_of(&mut watch, 1).await;
    assert!(matches!(
        first_turn.last().unwrap().event.as_str(),
        "done" | "turn_gap"
    ));
    let second_turn = until_done_of(&mut watch, 2).await;
    let second_turn: Vec<_> = second_turn
        .into_iter()
        .filter(|f| f.id.as_deref().is_some_and(|id| id.starts_with("2.")))
        .collect();
    assert_eq!(second_turn[0].event, "meta");
    assert_eq!(second_turn[0].id.as_deref(), Some("2.1"));
    // Both answers are stored whole.
    let history = api.history(&thread).await;
    let lengths: Vec<usize> = history
        .iter()
        .map(|m| m["content"].as_str().unwrap().len())
        .collect();
    assert_eq!(lengths, [21, 512 * 16 * 1024, 9, small_text.len()]);
}

#[tokio::test]
async fn a_socket_that_accepts_nothing_is_closed_and_the_turn_goes_on() {
    let (vendor, server, api, thread) = vendor_thread(&[("CONFER_STALLED_CLIENT_SECS", "1")]).await;
    let (big, _) = openai_answer(512, 16 * 1024);
    vendor.push(Reply::stream(big));
    let mut watch = api.open_watch(&thread, "?follow=true", None).await;
    let stalled = stalled_send(&server, &thread, "a long answer, please").await;
    let started = Instant::now();
    // The server drops the connection once its peer's receive window has
    // stayed shut for the stall time (the kernel sends nothing then: the
    // peer is presumed gone), so its end leaves the kernel's socket table.
    let client_port = stalled.local_addr().unwrap().port();
    let server_port = stalled.peer_addr().unwrap().port();
    while server_side_open(server_port, client_port) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the stalled connection is still open"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    println!("stalled connection closed after {:?}", started.elapsed());
    // A reader that reads is not touched, and the turn finished whole.
    let turn = until_done_of(&mut watch, 1).await;
    assert!(matches!(
        turn.last().unwrap().event.as_str(),
        "done" | "turn_gap"
    ));
    // A watcher told `turn_gap` may hear of the gap before the answer is
    // stored.
    let history =
        crate::common::eventually(Duration::from_secs(10), "the answer stored", async || {
            Some(api.history(&thread).await).filter(|h| h.len() == 2)
        })
        .await;
    assert_eq!(
        history[1]["content"].as_str().unwrap().len(),
        512 * 16 * 1024
    );
}

#[tokio::test]
async fn stop_ends_a_turn_with_a_stalled_reader_at_once() {
    let (vendor, server, api, thread) = vendor_thread(&[]).await;
    // 200 deltas of 4 KiB, 50 ms apart: ten seconds of answer.
    let (slow, _) = openai_answer(200, 4 * 1024);
    vendor.push(Reply::paced(slow, Duration::from_millis(50)));
    let mut watch = api.open_watch(&thread, "?follow=true", None).await;
    let _stalled = stalled_send(&server, &thread, "slowly").await;
    // Wait until the turn is well under way (its frames outrun the socket).
    let mut tokens = 0;
    while tokens < 20 {
        let frame = watch.next_within(Duration::from_secs(30)).await.unwrap();
        tokens += usize::from(frame.event == "token");
    }
    let asked = Instant::now();
    let stopped = api
        .post(&format!("/api/threads/{thread}/stop"), json!({}))
        .await
        .expect(200);
    assert_eq!(stopped["stopped"], true);
    let rest = until_done_of(&mut watch, 1).await;
    let took = asked.elapsed();
    let done = &rest.last().unwrap().data;
    assert_eq!(done["stopped"], true, "{done}");
    println!("stop to `done` with a stalled reader: {took:?}");
    assert!(took < Duration::from_secs(2), "stop took {took:?}");
    // Nothing runs now: a second stop cancels nothing. An empty body is fine.
    let again = reqwest::Client::new()
        .post(format!("{}/api/threads/{thread}/stop", server.base))
        .bearer_auth(crate::common::BOOTSTRAP_KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 200);
    assert_eq!(again.json::<Value>().await.unwrap()["stopped"], false);
}

#[tokio::test]
async fn a_dropped_connection_resumes_after_its_last_event_id() {
    let (vendor, _server, api, thread) = vendor_thread(&[]).await;
    let (paced, text) = openai_answer(40, 100);
    vendor.push(Reply::paced(paced, Duration::from_millis(20)));
    // Nothing running yet: no stream to reattach to.
    let none = api.open_watch(&thread, "", None).await;
    assert_eq!(none.status, 204);

    let mut sent = api.open_stream(&thread, json!({"content": "go"})).await;
    let mut seen = Vec::new();
    for _ in 0..5 {
        seen.push(sent.next_within(Duration::from_secs(10)).await.unwrap());
    }
    drop(sent); // the connection is lost
    let last = seen.last().unwrap().id.clone().unwrap();
    assert_eq!(last, "1.5");
    let resumed = api.open_watch(&thread, "", Some(&last)).await;
    assert_eq!(resumed.status, 200);
    let rest = resumed.collect().await;
    let mut ids: Vec<String> = seen
        .iter()
        .chain(&rest)
        .map(|f| f.id.clone().unwrap())
        .collect();
    let count = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), count, "no frame twice");
    assert_eq!(
        ids,
        (1..=count).map(|n| format!("1.{n}")).collect::<Vec<_>>()
    );
    let done = done_of(&rest);
    assert_eq!(done["ok"], true);
    let tokens: String = seen
        .iter()
        .chain(&rest)
        .filter(|f| f.event == "token")
        .map(|f| f.data["delta"].as_str().unwrap())
        .collect();
    assert!(tokens == text, "the tokens make the whole answer");
    // The finished turn is still retained: `?after=` replays its tail.
    let tail = api.open_watch(&thread, "?after=1.3", None).await;
    assert_eq!(tail.status, 200);
    let tail = tail.collect().await;
    assert_eq!(tail[0].id.as_deref(), Some("1.4"));
    assert_eq!(done_of(&tail)["ok"], true);
    // Malformed and future positions are 400.
    for bad in ["x", "1", "1.x", "9.1"] {
        let response = api.open_watch(&thread, "", Some(bad)).await;
        assert_eq!(response.status, 400, "{bad}");
    }
}

#[tokio::test]
async fn a_watcher_follows_two_participants_turns_in_order() {
    let server = Server::start();
    let api = server.admin();
    let agent = api.agent("Room").await;
    let thread = api.thread(&agent, json!({})).await;
    let mut watch = api.open_watch(&thread, "?follow=true", None).await;
    let first = watch.next_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!(first.event, "watching");
    assert_eq!(first.data["runningTurn"], Value::Null);
    let alice = api.clone();
    let thread_a = thread.clone();
    let from_alice = tokio::spawn(async move {
        alice
            .say(
                &thread_a,
                json!({"content": "hello from alice", "senderName": "Alice"}),
            )
            .await
    });
    let from_bob = api
        .say(
            &thread,
            json!({"content": "hello from bob", "senderName": "Bob"}),
        )
        .await;
    from_alice.await.unwrap();
    assert_eq!(done_of(&from_bob)["ok"], true);
    let mut watched = until_done_of(&mut watch, 1).await;
    watched.extend(until_done_of(&mut watch, 2).await);
    let metas: Vec<&str> = watched
        .iter()
        .filter(|f| f.event == "meta")
        .map(|f| f.id.as_deref().unwrap())
        .collect();
    assert_eq!(metas, ["1.1", "2.1"]);
    let contents: Vec<&str> = watched
        .iter()
        .filter(|f| f.event == "done")
        .map(|f| f.data["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents.len(), 2);
    assert!(contents.contains(&"hello from alice") && contents.contains(&"hello from bob"));
}

#[tokio::test]
async fn busy_threads_refuse_or_queue_before_any_stream() {
    let (vendor, server, api, thread) =
        vendor_thread(&[("CONFER_MAX_QUEUED_PER_THREAD", "1")]).await;
    let (slow, _) = openai_answer(100, 100);
    vendor.push(Reply::paced(slow, Duration::from_millis(50)));
    let mut running = api.open_stream(&thread, json!({"content": "first"})).await;
    assert_eq!(
        running
            .next_within(Duration::from_secs(10))
            .await
            .unwrap()
            .event,
        "meta"
    );
    // One may wait, told its place with id `2.0`.
    let mut waiting = api.open_stream(&thread, json!({"content": "second"})).await;
    let queued = waiting.next_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!(
        (queued.event.as_str(), queued.id.as_deref(), &queued.data),
        ("queued", Some("2.0"), &json!({"position": 1}))
    );
    // One more is refused before any stream, and so is a `reject`.
    let full = reqwest::Client::new()
        .post(format!("{}/api/threads/{thread}/messages", server.base))
        .bearer_auth(crate::common::BOOTSTRAP_KEY)
        .json(&json!({"content": "third"}))
        .send()
        .await
        .unwrap();
    assert_eq!(full.status(), 429);
    assert_eq!(full.headers()["retry-after"], "1");
    assert_eq!(
        full.json::<Value>().await.unwrap()["error"],
        "THREAD_QUEUE_FULL"
    );
    api.post(
        &format!("/api/threads/{thread}/messages"),
        json!({"content": "now?", "ifBusy": "reject"}),
    )
    .await
    .expect_error(409, "THREAD_BUSY");
    api.post(
        &format!("/api/threads/{thread}/messages"),
        json!({"content": "x", "ifBusy": "sometimes"}),
    )
    .await
    .expect_error(400, "BAD_REQUEST");
    // Stop with `queued`: the running turn stops, the waiting one is cancelled.
    let stopped = api
        .post(
            &format!("/api/threads/{thread}/stop"),
            json!({"queued": true}),
        )
        .await
        .expect(200);
    assert_eq!(stopped["stopped"], true);
    let cancelled = waiting.collect().await;
    let error = crate::common::error_of(&cancelled);
    assert_eq!(error["code"], "CANCELLED");
    assert_eq!(done_of(&cancelled)["ok"], false);
    assert_eq!(done_of(&running.collect().await)["stopped"], true);
    // The cancelled send stored nothing; the stopped one its message.
    let history = api.history(&thread).await;
    let contents: Vec<&str> = history
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert!(!contents.contains(&"second"), "{contents:?}");
    assert!(contents.contains(&"first"));
}

#[tokio::test]
async fn keep_alives_are_one_comment_line_and_never_come_first() {
    let server = Server::start_with(Options::default().env("CONFER_SSE_KEEP_ALIVE_MS", "100"));
    let api = server.admin();
    let agent = api.agent("Quiet").await;
    let thread = api.thread(&agent, json!({})).await;
    let mut watch = api.open_watch(&thread, "?follow=true", None).await;
    let mut raw = String::new();
    while raw.matches(": keep-alive").count() < 3 {
        raw.push_str(&watch.raw_chunk().await.unwrap());
    }
    assert!(raw.starts_with("id: 0.0\nevent: watching\ndata: "), "{raw}");
    assert!(!raw.contains(": keep-alive\n\n"), "{raw:?}");
}

/// What `tests/peers/read.cjs` (fetch-event-source under Node) read.
async fn read_with_fetch_event_source(url: &str, body: Option<&Value>) -> Value {
    let dir = crate::common::peers_dir("@microsoft/fetch-event-source");
    let mut command = std::process::Command::new("node");
    command
        .arg(dir.join("read.cjs"))
        .arg(url)
        .arg(crate::common::BOOTSTRAP_KEY);
    if let Some(body) = body {
        command.arg(body.to_string());
    }
    let output = tokio::time::timeout(
        Duration::from_secs(60),
        tokio::task::spawn_blocking(move || command.output()),
    )
    .await
    .expect("the client finishes")
    .unwrap()
    .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(stdout.trim()).unwrap_or_else(|_| {
        panic!(
            "client output: {stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// A browser SSE library that turns a blank line after a comment into an
/// empty message reads every event of a stream with keep-alives between
/// its tokens, none empty or broken.
#[tokio::test]
async fn fetch_event_source_reads_every_event_and_no_empty_one() {
    let server = Server::start_with(
        Options::default()
            .env("CONFER_SSE_KEEP_ALIVE_MS", "40")
            .env("CONFER_BUILTIN_DELAY_MS", "120"),
    );
    let api = server.admin();
    let agent = api.agent("Browser").await;
    let thread = api.thread(&agent, json!({})).await;
    let read = read_with_fetch_event_source(
        &format!("{}/api/threads/{thread}/messages", server.base),
        Some(&json!({"content": "one two three four five six"})),
    )
    .await;
    assert_eq!(read["empty"], 0, "{read}");
    assert_eq!(read["broken"], 0, "{read}");
    let events: Vec<&str> = read["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        events,
        [
            "meta", "token", "token", "token", "token", "token", "token", "done"
        ],
        "{read}"
    );
    assert_eq!(read["events"][0]["id"], "1.1");
}

/// SIGINT mid-stream: the queued send ends at once, the running turns get
/// the grace time and then end with `SHUTTING_DOWN` and `done`, watchers
/// end, the process exits 0, and every acknowledged message is there after.
#[tokio::test]
async fn sigint_ends_every_stream_with_done_and_loses_nothing_acknowledged() {
    let mut server = Server::start_with(
        Options::default()
            .env("CONFER_BUILTIN_DELAY_MS", "100")
            .env("CONFER_SHUTDOWN_TIMEOUT_SECS", "1"),
    );
    let api = server.admin();
    let agent = api.agent("Busy").await;
    let (a, b) = (
        api.thread(&agent, json!({})).await,
        api.thread(&agent, json!({})).await,
    );
    let long: String = (0..40).map(|n| format!("word{n} ")).collect();
    let first = |stream: crate::common::EventStream, event: &'static str| async move {
        let mut stream = stream;
        let frame = stream.next_within(Duration::from_secs(10)).await.unwrap();
        assert_eq!(frame.event, event);
        stream
    };
    let run_a = first(api.open_stream(&a, json!({"content": long})).await, "meta").await;
    let run_b = first(api.open_stream(&b, json!({"content": long})).await, "meta").await;
    let queued = first(
        api.open_stream(&a, json!({"content": "never stored"}))
            .await,
        "queued",
    )
    .await;
    let watch = first(api.open_watch(&b, "?follow=true", None).await, "watching").await;
    let signalled = Instant::now();
    server.signal("INT");

    let dropped = queued.collect().await;
    assert_eq!(crate::common::error_of(&dropped)["code"], "SHUTTING_DOWN");
    assert_eq!(done_of(&dropped)["ok"], false);
    for running in [run_a, run_b] {
        let frames = running.collect().await;
        assert_eq!(crate::common::error_of(&frames)["code"], "SHUTTING_DOWN");
        let done = done_of(&frames);
        assert_eq!(
            (done["ok"].clone(), done["stopped"].clone()),
            (json!(false), json!(true))
        );
    }
    println!(
        "running turns ended {:?} after SIGINT (grace 1 s)",
        signalled.elapsed()
    );
    let watched = tokio::time::timeout(Duration::from_secs(20), watch.collect())
        .await
        .expect("the watcher's stream ends");
    assert_eq!(watched.last().unwrap().event, "done");
    assert!(
        server.exited(Duration::from_secs(20)).await,
        "exit status 0"
    );

    let server = server.restart();
    let api = server.admin();
    let in_a: Vec<String> = api
        .history(&a)
        .await
        .iter()
        .map(|m| m["content"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        in_a,
        std::slice::from_ref(&long),
        "the acknowledged message, not the queued one"
    );
    assert_eq!(api.history(&b).await[0]["content"], long.as_str());
}

/// The usage records of a thread.
async fn usage_of(api: &Api, thread: &str) -> usize {
    api.get(&format!("/api/usage?threadId={thread}"))
        .await
        .expect(200)["records"]
        .as_array()
        .unwrap()
        .len()
}

/// An idempotent retry during and after the turn, and after a restart, gets
/// the same turn (same messageId), and no second message or usage record.
#[tokio::test]
async fn idempotent_retries_get_the_same_turn_also_after_a_restart() {
    let server = Server::start_with(Options::default().env("CONFER_BUILTIN_DELAY_MS", "30"));
    let api = server.admin();
    let agent = api.agent("Once").await;
    let thread = api.thread(&agent, json!({})).await;
    let body = json!({"content": "only once please, even when asked twice"});

    let mut first = api.open_keyed(&thread, "key-1", body.clone()).await;
    assert_eq!(first.status, 200);
    let meta = first.next_within(Duration::from_secs(10)).await.unwrap();
    // During the turn: the same turn's frames, from the first.
    let during = api.open_keyed(&thread, "key-1", body.clone()).await;
    assert_eq!(during.status, 200);
    assert_eq!(during.headers["idempotent-replayed"], "true");
    let during = during.collect().await;
    assert_eq!(during[0].id, meta.id);
    assert_eq!(during[0].data["userMessageId"], meta.data["userMessageId"]);
    let original = done_of(&first.collect().await);
    assert_eq!(done_of(&during)["messageId"], original["messageId"]);
    // After it: the same again.
    let after = api.say_keyed(&thread, "key-1", body.clone()).await;
    assert_eq!(done_of(&after)["messageId"], original["messageId"]);
    // Same key, another request: refused.
    let reused = api
        .open_keyed(&thread, "key-1", json!({"content": "something else"}))
        .await;
    assert_eq!(reused.status, 422);
    // A malformed key is 400.
    let bad = api
        .open_keyed(&thread, &"k".repeat(256), body.clone())
        .await;
    assert_eq!(bad.status, 400);
    assert_eq!(api.history(&thread).await.len(), 2);
    assert_eq!(usage_of(&api, &thread).await, 1);

    // After a restart, the answer is rebuilt from the store.
    let server = server.kill_and_restart();
    let api = server.admin();
    let rebuilt = api.open_keyed(&thread, "key-1", body.clone()).await;
    assert_eq!(rebuilt.headers["idempotent-replayed"], "true");
    let rebuilt = rebuilt.collect().await;
    assert_eq!(rebuilt[0].event, "meta");
    assert_eq!(rebuilt[0].data["userMessageId"], meta.data["userMessageId"]);
    let done = done_of(&rebuilt);
    assert_eq!(done["messageId"], original["messageId"]);
    assert_eq!(done["content"], original["content"]);
    assert_eq!(done["usage"], original["usage"]);
    assert_eq!(api.history(&thread).await.len(), 2);
    assert_eq!(usage_of(&api, &thread).await, 1);
    // Another key is another send.
    let other = api.say_keyed(&thread, "key-2", body).await;
    assert_ne!(done_of(&other)["messageId"], original["messageId"]);
    assert_eq!(api.history(&thread).await.len(), 4);
}

/// The send's rules are decided in one place, the thread's actor: a keyed
/// send is refused like any other (422 or 409, nothing stored), a repeat of
/// a keyed send that ran is answered whatever the thread now says, and a send
/// that waited is checked again as its turn starts.
#[tokio::test]
async fn a_keyed_send_meets_the_same_rules_and_a_repeat_gets_the_first_outcome() {
    let server = Server::start_with(Options::default().env("CONFER_BUILTIN_DELAY_MS", "30"));
    let api = server.admin();
    let agent = api.agent("Rules").await;
    let thread = api.thread(&agent, json!({})).await;
    let refusal = |mut stream: EventStream, status: u16| async move {
        assert_eq!(stream.status, status);
        stream.raw_chunk().await.unwrap_or_default()
    };
    let stray = json!({"content": "", "toolResults": [{"toolCallId": "call_Z", "output": "x"}]});
    let detail = refusal(api.open_keyed(&thread, "k-stray", stray).await, 422).await;
    assert!(
        detail.contains("toolResults") && detail.contains("call_Z"),
        "{detail}"
    );
    let detail = refusal(
        api.open_keyed(&thread, "k-empty", json!({"content": " "}))
            .await,
        422,
    )
    .await;
    assert!(detail.contains("content"), "{detail}");
    let tools = json!({"content": "hi", "tools": [{"name": "a b", "parameters": {}}]});
    let detail = refusal(api.open_keyed(&thread, "k-tools", tools).await, 422).await;
    assert!(detail.contains("tools[0].name"), "{detail}");
    assert!(api.history(&thread).await.is_empty());

    let body = json!({"content": "hi"});
    let first = api.say_keyed(&thread, "k-ran", body.clone()).await;
    // A send queued behind a running one, when the agent goes meanwhile.
    let slow = "slow ".repeat(100); // 3 s of tokens, 30 ms apart
    let mut running = api.open_stream(&thread, json!({"content": slow})).await;
    assert_eq!(running.status, 200);
    running.next_within(Duration::from_secs(10)).await.unwrap();
    let queued = api.open_stream(&thread, json!({"content": "later"})).await;
    assert_eq!(queued.status, 200);
    api.delete(&format!("/api/agents/{agent}"))
        .await
        .expect(200);
    let queued = queued.collect().await;
    let error = queued
        .iter()
        .find(|f| f.event == "error")
        .expect("an error frame");
    assert_eq!(error.data["code"], "CONFLICT", "{:?}", error.data);
    running.collect().await;

    let again = api.say_keyed(&thread, "k-ran", body.clone()).await;
    assert_eq!(done_of(&again)["messageId"], done_of(&first)["messageId"]);
    let detail = refusal(api.open_keyed(&thread, "k-new", body).await, 409).await;
    assert!(detail.contains("deleted"), "{detail}");
    // The first send and the slow one, each with its answer; nothing else.
    assert_eq!(api.history(&thread).await.len(), 4);
}

/// `CONFER_MAX_ACTIVE_TURNS_PER_ORG`: past it a send waits for its org's
/// capacity (`queued {reason: "org"}`, also with `ifBusy: reject` on an
/// idle thread), slots go in arrival order across threads, and one more than
/// the org queue holds is 429 `ORG_QUEUE_FULL`.
#[tokio::test]
async fn the_org_turn_cap_queues_across_threads_in_order() {
    let (vendor, server) = vendor_server(&[
        ("CONFER_MAX_ACTIVE_TURNS_PER_ORG", "1"),
        ("CONFER_MAX_QUEUED_PER_ORG", "2"),
    ])
    .await;
    let api = server.admin();
    let agent = vendor_agent(&api).await;
    let mut threads = Vec::new();
    for _ in 0..4 {
        threads.push(api.thread(&agent, json!({})).await);
    }
    let (slow, _) = openai_answer(100, 100);
    vendor.push(Reply::paced(slow, Duration::from_millis(30)));
    let (quick, _) = openai_answer(2, 10);
    vendor.push(Reply::stream(quick.clone()));
    vendor.push(Reply::stream(quick));

    let mut running = api
        .open_stream(&threads[0], json!({"content": "first"}))
        .await;
    assert_eq!(
        running
            .next_within(Duration::from_secs(10))
            .await
            .unwrap()
            .event,
        "meta"
    );
    let mut second = api
        .open_stream(&threads[1], json!({"content": "second"}))
        .await;
    let queued = second.next_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!(queued.event, "queued");
    assert_eq!(queued.data, json!({"position": 1, "reason": "org"}));
    // `reject` refuses only a busy thread: this one is idle, so it waits.
    let mut third = api
        .open_stream(&threads[2], json!({"content": "third", "ifBusy": "reject"}))
        .await;
    assert_eq!(third.status, 200);
    let queued = third.next_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!(queued.data, json!({"position": 2, "reason": "org"}));
    api.post(
        &format!("/api/threads/{}/messages", threads[3]),
        json!({"content": "fourth"}),
    )
    .await
    .expect_error(429, "ORG_QUEUE_FULL");
    // The running turn ends: the second, then the third, run in order.
    api.post(&format!("/api/threads/{}/stop", threads[0]), json!({}))
        .await
        .expect(200);
    assert_eq!(done_of(&running.collect().await)["stopped"], true);
    let second = second.collect().await;
    assert_eq!(done_of(&second)["ok"], true);
    let third = third.collect().await;
    // The third moved up to first place before it ran.
    assert!(
        third
            .iter()
            .any(|f| f.event == "queued" && f.data["position"] == 1)
    );
    assert_eq!(done_of(&third)["ok"], true);
}
