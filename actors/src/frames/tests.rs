//! The frame log's retention, gaps and watcher cap.
use super::*;

fn token(text: &str) -> ThreadEvent {
    ThreadEvent::Token { delta: text.into() }
}

fn done() -> ThreadEvent {
    ThreadEvent::Done {
        ok: true,
        message_id: None,
        content: String::new(),
        usage: None,
        stopped: None,
        requires_action: None,
        gap: None,
    }
}

fn log(replay_bytes: usize) -> Arc<FrameLog> {
    Arc::new(FrameLog::new(
        ThreadId::new(),
        Retention {
            replay_bytes,
            max_watchers: 2,
            ..Retention::default()
        },
    ))
}

#[test]
fn frame_ids_read_and_write_as_turn_dot_index() {
    assert_eq!("7.12".parse(), Ok(FrameId { turn: 7, n: 12 }));
    assert_eq!(FrameId { turn: 3, n: 0 }.to_string(), "3.0");
    for bad in ["", "7", "7.", ".1", "a.1", "1.-1", "1.1.1", "+1.1"] {
        assert!(bad.parse::<FrameId>().is_err(), "{bad}");
    }
}

#[tokio::test]
async fn a_reader_behind_the_window_gets_a_gap_and_its_end() {
    let log = log(2_000);
    log.enqueue(1);
    let mut slow = log.read_turn(1);
    log.begin(1);
    for n in 0..100 {
        log.append(1, token(&format!("piece {n}")));
    }
    log.append(1, done());
    assert!(log.bytes() <= 2_000, "{} bytes kept", log.bytes());
    let first = slow.next().await.unwrap();
    assert!(matches!(&first.event, ThreadEvent::Error { code, .. } if code == "STREAM_GAP"));
    let last = slow.next().await.unwrap();
    assert!(matches!(
        last.event,
        ThreadEvent::Done {
            gap: Some(true),
            ..
        }
    ));
    assert!(slow.next().await.is_none());
    // A reattach can tell beforehand.
    assert_eq!(log.position(FrameId { turn: 1, n: 2 }), Position::Gone);
    assert_eq!(
        log.position(FrameId { turn: 1, n: 100 }),
        Position::Available
    );
    assert_eq!(log.position(FrameId { turn: 1, n: 500 }), Position::Future);
    assert_eq!(log.position(FrameId { turn: 9, n: 1 }), Position::Future);
}

#[tokio::test]
async fn watchers_are_capped_and_follow_skips_dropped_turns() {
    let log = log(1 << 20);
    let mut watcher = log.follow(None).unwrap();
    let _second = log.follow(None).unwrap();
    assert_eq!(log.follow(None).err(), Some(TooManyReaders));
    log.enqueue(1);
    log.enqueue(2);
    log.drop_queued(1, vec![done()]);
    log.begin(2);
    log.append(2, token("hi"));
    log.append(2, done());
    let ids: Vec<Option<FrameId>> = [watcher.next().await, watcher.next().await]
        .into_iter()
        .map(|f| f.unwrap().id)
        .collect();
    assert_eq!(
        ids,
        [
            Some(FrameId { turn: 2, n: 1 }),
            Some(FrameId { turn: 2, n: 2 })
        ]
    );
    drop(watcher);
    assert_eq!(log.readers(), 1);
    assert!(log.follow(None).is_ok(), "a slot came free");
}
