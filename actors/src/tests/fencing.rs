//! A node in a cluster (`scale.md` §3.5–3.6): a turn's end mark names the
//! index of its `done`, and a thread whose last turn another node started
//! numbers past that node's possible queue.

use super::*;

/// Always holds the one lease it was made with.
struct Held(Fence);

impl Leases for Held {
    fn fence(&self, _: ThreadId) -> Fence {
        self.0
    }
}

const ME: uuid::Uuid = uuid::Uuid::from_u128(1);

fn fenced() -> Fixture {
    let provider = Arc::new(ScriptedProvider {
        delay: Duration::ZERO,
        contexts: Mutex::new(Vec::new()),
        threads: Mutex::new(Vec::new()),
    });
    let fence = Fence {
        node: ME,
        shard: 7,
        epoch: 3,
    };
    let limits = ThreadLimits {
        max_queued: 2,
        ..ThreadLimits::default()
    };
    Fixture::with_leases(
        provider.clone(),
        provider,
        Arc::new(crate::tools::NoServerTools),
        limits,
        256 * 1024 * 1024,
        Some(Arc::new(Held(fence))),
    )
}

/// The `done` frame's id of a turn read to its end.
async fn done_id(mut frames: FrameReader) -> FrameId {
    let mut done = None;
    while let Some(frame) = frames.next().await {
        if frame.event.is_done() {
            done = frame.id;
        }
    }
    done.expect("the turn ended with an identified done")
}

#[actix_rt::test]
async fn a_turns_end_mark_names_its_done_frame() {
    let fx = fenced();
    let thread = fx.thread();
    for content in ["one two three four", "panic"] {
        let done = done_id(fx.send(thread, content).await).await;
        // A crashed turn's row is marked beside its stream's end.
        let mut ended = None;
        for _ in 0..200 {
            let marks = fx.store.marks.lock().unwrap().clone();
            ended = marks.iter().rev().find_map(|mark| match mark {
                TurnMark::Ended(end) if end.turn == done.turn => Some(end.clone()),
                _ => None,
            });
            if ended.is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let ended = ended.expect("the turn's end was marked");
        assert_eq!(ended.last_frame, done.n, "{content}: {ended:?}");
        assert_eq!(ended.ok, content != "panic", "{ended:?}");
    }
}

#[actix_rt::test]
async fn after_another_nodes_turn_numbers_skip_its_queue() {
    let fx = fenced();
    let thread = fx.thread();
    fx.store.turns.lock().unwrap().insert(thread, 5);
    *fx.store.last_node.lock().unwrap() = Some(uuid::Uuid::from_u128(2));
    let log = fx.runtime.frames(fx.org, thread).await.unwrap();
    let mut watcher = log.follow(None).unwrap();
    // 5, then the other node's running turn and its two queued sends.
    let done = done_id(fx.send(thread, "hello").await).await;
    assert_eq!(done.turn, 9);
    // The watcher waited for this turn: no gap for the turns before it.
    let first = watcher.next().await.unwrap();
    assert_eq!(first.id.map(|id| id.turn), Some(9), "{:?}", first.event);
}

#[actix_rt::test]
async fn after_its_own_turns_a_node_numbers_on() {
    let fx = fenced();
    let thread = fx.thread();
    fx.store.turns.lock().unwrap().insert(thread, 5);
    *fx.store.last_node.lock().unwrap() = Some(ME);
    assert_eq!(done_id(fx.send(thread, "hello").await).await.turn, 6);
}

#[actix_rt::test]
async fn a_lost_lease_ends_every_send_and_forgets_the_actors() {
    let fx = Fixture::new(Duration::from_millis(50));
    let thread = fx.thread();
    let running = fx.send(thread, "one two three four five six seven").await;
    let queued = fx.send(thread, "later").await;
    tokio::time::sleep(Duration::from_millis(60)).await;
    assert_eq!(fx.runtime.lose_leases().await, 1);
    assert_eq!(
        fx.runtime.live_threads(),
        0,
        "the next request starts afresh"
    );
    for (reader, what) in [(running, "running"), (queued, "queued")] {
        let events = drain(reader).await;
        let code = events.iter().find_map(|e| match e {
            ThreadEvent::Error { code, .. } => Some(code.clone()),
            _ => None,
        });
        assert_eq!(
            code.as_deref(),
            Some("NODE_LOST_LEASE"),
            "{what}: {events:?}"
        );
        assert!(
            matches!(events.last(), Some(ThreadEvent::Done(d)) if !d.ok),
            "{what}"
        );
    }
    let answer = drain(fx.send(thread, "fresh").await).await;
    assert!(
        matches!(answer.last(), Some(ThreadEvent::Done(d)) if d.ok),
        "{answer:?}"
    );
}
