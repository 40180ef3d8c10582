//! The frame log's retention, gaps and watcher cap.
use super::*;
use crate::events::DoneEvent;

fn token(text: &str) -> ThreadEvent {
    ThreadEvent::Token { delta: text.into() }
}

fn done() -> ThreadEvent {
    ThreadEvent::Done(Box::new(DoneEvent {
        ok: true,
        ..DoneEvent::failed(String::new())
    }))
}

fn done_with(content: &str) -> ThreadEvent {
    let mut event = done();
    if let ThreadEvent::Done(done) = &mut event {
        done.content = content.to_owned();
    }
    event
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
    assert!(matches!(&last.event, ThreadEvent::Done(done) if done.gap == Some(true)));
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

#[tokio::test]
async fn a_watcher_resuming_after_watching_gets_no_gap() {
    // `watching` is `0.0`: a watcher that saw only it resumes after it.
    let log = log(1 << 20);
    log.enqueue(1);
    log.begin(1);
    log.append(1, token("hi"));
    let mut watcher = log.follow(Some(FrameId { turn: 0, n: 0 })).unwrap();
    let first = watcher.next().await.unwrap();
    assert_eq!(
        first.id,
        Some(FrameId { turn: 1, n: 1 }),
        "{:?}",
        first.event
    );
}

#[tokio::test]
async fn a_finished_turn_keeps_its_tokens_packed_and_replays_them_as_sent() {
    let log = log(1024 * 1024);
    log.enqueue(1);
    let mut live = log.read_turn(1);
    log.begin(1);
    let pieces: Vec<String> = (0..200).map(|n| format!("piece {n}, ")).collect();
    for piece in &pieces {
        log.append(1, token(piece));
    }
    let running = log.bytes();
    log.append(1, done_with(&pieces.concat()));
    let mut sent = Vec::new();
    while let Some(frame) = live.next().await {
        sent.push(frame);
    }
    // Kept: the content once, and 4 bytes a token instead of a frame each.
    let finished = log.bytes();
    assert!(
        finished < running / 2,
        "{running} bytes while running, {finished} once finished"
    );
    // A reattach after the first 50 tokens reads the rest exactly as sent.
    let mut late = log
        .reattach(Some(FrameId { turn: 1, n: 50 }))
        .unwrap()
        .unwrap();
    let mut replayed = Vec::new();
    while let Some(frame) = late.next().await {
        replayed.push(frame);
    }
    assert_eq!(replayed.len(), sent.len() - 50);
    for (again, first) in replayed.iter().zip(&sent[50..]) {
        assert_eq!(again.as_ref(), first.as_ref());
    }
}

#[tokio::test]
async fn tokens_that_do_not_make_the_content_stay_frames() {
    let log = log(1024 * 1024);
    log.begin(1);
    log.append(1, token("a"));
    log.append(1, token("b"));
    log.append(1, done_with("something else"));
    let mut late = log
        .reattach(Some(FrameId { turn: 1, n: 0 }))
        .unwrap()
        .unwrap();
    let mut events = Vec::new();
    while let Some(frame) = late.next().await {
        events.push(frame.event.clone());
    }
    assert_eq!(events[0], token("a"));
    assert_eq!(events[1], token("b"));
    assert!(events[2].is_done());
}

#[tokio::test]
async fn a_trimmed_turn_packs_the_tokens_it_kept() {
    let log = log(3_000);
    log.begin(1);
    let pieces: Vec<String> = (0..100).map(|n| format!("piece {n}, ")).collect();
    for piece in &pieces {
        log.append(1, token(piece));
    }
    log.append(1, done_with(&pieces.concat()));
    assert!(log.bytes() < 1_500, "packed: {} bytes", log.bytes());
    // The oldest tokens were dropped; a reattach from the start is a gap,
    // one from the last 5 tokens reads them as they were.
    let mut early = log
        .reattach(Some(FrameId { turn: 1, n: 0 }))
        .unwrap()
        .unwrap();
    let first = early.next().await.unwrap();
    assert!(matches!(&first.event, ThreadEvent::Error { code, .. } if code == "STREAM_GAP"));
    let mut late = log
        .reattach(Some(FrameId { turn: 1, n: 95 }))
        .unwrap()
        .unwrap();
    let mut events = Vec::new();
    while let Some(frame) = late.next().await {
        events.push(frame.event.clone());
    }
    let expected: Vec<ThreadEvent> = pieces[95..].iter().map(|p| token(p)).collect();
    assert_eq!(events[..5], expected[..]);
    assert!(events[5].is_done());
}

#[tokio::test]
async fn a_sign_in_challenge_reaches_the_senders_stream_alone() {
    let log = log(100_000);
    log.enqueue(1);
    let mut sender = log.read_turn(1);
    let mut watcher = log.follow(None).unwrap();
    log.begin(1);
    let mut reattached = log.reattach(None).unwrap().unwrap();
    log.append(1, token("a"));
    log.append(
        1,
        ThreadEvent::AuthChallenge {
            tool_name: "notes__whoami".into(),
            challenge: Box::new(crate::events::AuthChallenge {
                provider: "notes".into(),
                redirect_url: "https://confer.example/begin?ticket=secret".into(),
                description: None,
            }),
        },
    );
    log.append(1, token("b"));
    log.append(1, done());
    let names = |frames: Vec<Arc<Frame>>| -> Vec<&'static str> {
        frames.iter().map(|f| f.event.name()).collect()
    };
    let read = |reader: &mut FrameReader| {
        let mut frames = Vec::new();
        while let Ready::Frame(frame) = reader.try_next() {
            let done = frame.event.is_done();
            frames.push(frame);
            if done {
                break;
            }
        }
        frames
    };
    assert_eq!(
        names(read(&mut sender)),
        ["token", "auth_challenge", "token", "done"]
    );
    assert_eq!(names(read(&mut watcher)), ["token", "token", "done"]);
    assert_eq!(names(read(&mut reattached)), ["token", "token", "done"]);
}

fn status(text: &str) -> ThreadEvent {
    crate::events::SessionStatusEvent::bare("s", text)
}

fn is_status(frame: &Frame, text: &str) -> bool {
    frame.id.is_none() && matches!(&frame.event, ThreadEvent::SessionStatus(s) if s.status == text)
}

#[tokio::test]
async fn a_notice_comes_after_the_frames_before_it_and_the_last_ends_the_stream() {
    let log = log(1 << 20);
    let mut slow = log.follow(None).unwrap();
    log.enqueue(1);
    log.begin(1);
    log.append(1, token("a"));
    log.append(1, done());
    // Posted once turn 1 ended: a reader still at its start is given it
    // after the turn's frames.
    log.notice(status("completed"), false);
    let ids: Vec<Option<FrameId>> =
        vec![slow.next().await.unwrap().id, slow.next().await.unwrap().id];
    assert_eq!(
        ids,
        [
            Some(FrameId { turn: 1, n: 1 }),
            Some(FrameId { turn: 1, n: 2 })
        ]
    );
    assert!(is_status(&slow.next().await.unwrap(), "completed"));
    // A follower that comes later is not given it again.
    let mut late = log.follow(None).unwrap();
    log.notice(status("archived"), true);
    assert!(is_status(&late.next().await.unwrap(), "archived"));
    assert!(late.next().await.is_none());
    assert!(is_status(&slow.next().await.unwrap(), "archived"));
    assert!(slow.next().await.is_none());
    // The sender's own stream of a turn is not a follower.
    log.enqueue(2);
    let mut own = log.read_turn(2);
    log.begin(2);
    log.notice(status("idle"), false);
    log.append(2, done());
    assert!(own.next().await.unwrap().event.is_done());
    assert!(own.next().await.is_none());
}

#[tokio::test]
async fn a_notice_posted_while_a_turn_runs_comes_after_its_done() {
    let log = log(1 << 20);
    let mut follower = log.follow(None).unwrap();
    log.enqueue(1);
    log.begin(1);
    log.append(1, token("a"));
    assert!(follower.next().await.unwrap().id.is_some());
    // An archive: the stop is asked for, the notice posted, and the turn's
    // `done` only written afterwards.
    log.notice(status("archived"), true);
    assert!(matches!(follower.try_next(), reader::Ready::Wait));
    log.append(1, done());
    assert!(follower.next().await.unwrap().event.is_done());
    assert!(is_status(&follower.next().await.unwrap(), "archived"));
    assert!(follower.next().await.is_none());
}

#[tokio::test]
async fn a_log_keeps_the_newest_notices_only() {
    let log = log(1 << 20);
    let mut reader = log.follow(None).unwrap();
    for n in 0..NOTICES_KEPT + 3 {
        log.notice(status(&format!("s{n}")), false);
    }
    // The three oldest were dropped before the reader came to them.
    for n in 3..NOTICES_KEPT + 3 {
        let frame = reader.next().await.unwrap();
        assert!(is_status(&frame, &format!("s{n}")), "{:?}", frame.event);
    }
    assert!(matches!(reader.try_next(), reader::Ready::Wait));
}
