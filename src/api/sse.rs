//! Server-Sent Events out of a frame reader (`streams.md`).
//!
//! Written here rather than with actix-web-lab's `Sse` because the contract's
//! keep-alive is a single comment line with **no** blank line after it (a
//! blank line after a comment makes fetch-event-source deliver an empty
//! message), and the first frame of every stream must be a real event; the
//! encoding itself is three lines per event.

use std::pin::Pin;
use std::time::{Duration, Instant};

use actix_web::HttpResponse;
use actix_web::http::header;
use bytes::{Bytes, BytesMut};
use confer_actors::{FrameId, FrameReader, Ready, ThreadEvent};
use tokio::sync::watch;
use tokio::time::Sleep;

/// The keep-alive comment: one line, no blank line after it.
pub(super) const KEEP_ALIVE_LINE: &[u8] = b": keep-alive\n";

/// Who reads a stream: an API caller sees every event; a public chat's
/// visitor a filtered few (`publishing.md` rule 9), until its publication's
/// sessions end (the receiver's sender is dropped).
#[derive(Clone, Debug)]
pub enum Audience {
    Full,
    Public(watch::Receiver<()>),
}

/// Appends `event` for `audience` (nothing when the audience does not see it).
fn encode_for(out: &mut BytesMut, id: Option<FrameId>, event: &ThreadEvent, public: bool) {
    if public {
        super::public::events::encode_public(out, id, event);
    } else {
        encode_into(out, id, event);
    }
}

/// Appends one SSE event to `out`: `id:` (when given), `event:`, `data:`.
pub(super) fn encode_into(out: &mut BytesMut, id: Option<FrameId>, event: &ThreadEvent) {
    match event {
        // The token path: the delta's text escaped straight into the
        // frame, without the event's serializer around it.
        ThreadEvent::Token { delta } => {
            write_id(out, id);
            out.extend_from_slice(b"event: token\ndata: {\"delta\":");
            write_json(out, delta.as_str());
            out.extend_from_slice(b"}\n\n");
        }
        _ => encode_data(out, id, event.name(), event),
    }
}

/// Appends the `id:` line, when there is one (digits written by hand: the
/// formatting machinery was a visible share of a token frame's cost).
fn write_id(out: &mut BytesMut, id: Option<FrameId>) {
    if let Some(id) = id {
        out.extend_from_slice(b"id: ");
        write_number(out, id.turn);
        out.extend_from_slice(b".");
        write_number(out, id.n);
        out.extend_from_slice(b"\n");
    }
}

/// Appends `n` in decimal.
fn write_number(out: &mut BytesMut, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        // `n % 10` is a digit: the cast cannot truncate.
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// Appends `data` as JSON.
fn write_json(out: &mut BytesMut, data: &(impl serde::Serialize + ?Sized)) {
    use bytes::BufMut;
    let start = out.len();
    // Serializing these plain values cannot fail; an empty object is a safe fallback.
    if serde_json::to_writer((&mut *out).writer(), data).is_err() {
        out.truncate(start);
        out.extend_from_slice(b"{}");
    }
}

/// Appends one SSE event named `name` with `data` as its JSON.
pub(super) fn encode_data(
    out: &mut BytesMut,
    id: Option<FrameId>,
    name: &str,
    data: &impl serde::Serialize,
) {
    write_id(out, id);
    out.extend_from_slice(b"event: ");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\ndata: ");
    write_json(out, data);
    out.extend_from_slice(b"\n\n");
}

/// One SSE event as bytes.
pub fn encode(id: Option<FrameId>, event: &ThreadEvent) -> Bytes {
    let mut out = BytesMut::with_capacity(128);
    encode_into(&mut out, id, event);
    out.freeze()
}

/// What the stream sends before the reader's frames (a follow stream's
/// `watching`).
pub struct Preamble(pub Option<Bytes>);

/// `events` as a stream's preamble, encoded for `audience`.
pub fn preamble(events: &[(Option<FrameId>, ThreadEvent)], audience: &Audience) -> Preamble {
    let public = matches!(audience, Audience::Public(_));
    let mut out = BytesMut::with_capacity(128 * events.len());
    for (id, event) in events {
        encode_for(&mut out, *id, event, public);
    }
    Preamble(Some(out.freeze()))
}

/// Frames ready at once are written together, up to about this many bytes.
const BATCH_BYTES: usize = 64 * 1024;
/// Room made in a stream's buffer before a batch: one token frame's worth.
const FRAME_ROOM: usize = 256;

/// The SSE response relaying `reader` to its end, a keep-alive after each
/// `keep_alive` without a frame (it keeps proxies from closing the stream).
/// Every frame ready when the client can take more goes out in one write;
/// the keep-alive timer is one per stream, moved only when it fires.
pub fn response(
    preamble: Preamble,
    reader: FrameReader,
    keep_alive: Duration,
    replayed: bool,
    audience: Audience,
) -> HttpResponse {
    let (public, until) = match audience {
        Audience::Full => (false, None),
        Audience::Public(until) => (true, Some(until)),
    };
    struct State {
        reader: FrameReader,
        /// Ends the stream when its sender goes (a public chat's sessions
        /// were revoked).
        until: Option<watch::Receiver<()>>,
        first: Option<Bytes>,
        /// Every batch is written into this buffer and handed out split off
        /// it; once the connection has copied a batch and dropped it, the
        /// next `reserve` takes the same memory back (no allocation per
        /// batch).
        buf: BytesMut,
        quiet: Pin<Box<Sleep>>,
        last_sent: Instant,
        ended: bool,
        /// Counts the stream in `confer_open_streams` while it is open.
        _open: confer_actors::turn_metrics::GaugeGuard,
    }
    let state = State {
        reader,
        until,
        first: preamble.0,
        buf: BytesMut::new(),
        quiet: Box::pin(tokio::time::sleep(keep_alive)),
        last_sent: Instant::now(),
        ended: false,
        _open: confer_actors::turn_metrics::GaugeGuard::new(
            confer_actors::turn_metrics::names::OPEN_STREAMS,
        ),
    };
    let body = futures_util::stream::unfold(state, move |mut state| async move {
        if let Some(first) = state.first.take() {
            state.last_sent = Instant::now();
            return Some((Ok::<_, std::convert::Infallible>(first), state));
        }
        if state.ended {
            return None;
        }
        loop {
            tokio::select! {
                biased;
                // `FrameReader::next` keeps its place when this wait is dropped.
                frame = state.reader.next() => {
                    let frame = frame?;
                    state.buf.reserve(FRAME_ROOM);
                    encode_for(&mut state.buf, frame.id, &frame.event, public);
                    while state.buf.len() < BATCH_BYTES {
                        match state.reader.try_next() {
                            Ready::Frame(frame) => {
                                encode_for(&mut state.buf, frame.id, &frame.event, public);
                            }
                            Ready::Wait => break,
                            Ready::End => {
                                state.ended = true;
                                break;
                            }
                        }
                    }
                    state.last_sent = Instant::now();
                    let batch = state.buf.split().freeze();
                    return Some((Ok(batch), state));
                }
                () = ended(&mut state.until) => return None,
                () = &mut state.quiet => {
                    let due = state.last_sent + keep_alive;
                    let now = Instant::now();
                    if now >= due {
                        state.last_sent = now;
                        state.quiet.as_mut().reset((now + keep_alive).into());
                        return Some((Ok(Bytes::from_static(KEEP_ALIVE_LINE)), state));
                    }
                    state.quiet.as_mut().reset(due.into());
                }
            }
        }
    });
    let mut response = HttpResponse::Ok();
    response
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"));
    if replayed {
        response.insert_header(("Idempotent-Replayed", "true"));
    }
    response.streaming(body)
}

/// Resolves when `until`'s sender is dropped (or sends); never without one.
async fn ended(until: &mut Option<watch::Receiver<()>>) {
    match until {
        Some(until) => {
            let _ = until.changed().await;
        }
        None => std::future::pending().await,
    }
}

/// A stream of `events` made for one answer (a repeated keyed send whose
/// turn is no longer kept), marked `Idempotent-Replayed`.
pub fn replay(events: &[ThreadEvent], audience: &Audience) -> HttpResponse {
    whole(events, audience, true)
}

/// A stream that is over once `events` (id-less) are sent: what an
/// archived code session's event stream is.
pub fn finished(events: &[ThreadEvent], audience: &Audience) -> HttpResponse {
    whole(events, audience, false)
}

fn whole(events: &[ThreadEvent], audience: &Audience, replayed: bool) -> HttpResponse {
    let public = matches!(audience, Audience::Public(_));
    let mut body = BytesMut::new();
    for event in events {
        encode_for(&mut body, None, event, public);
    }
    let mut response = HttpResponse::Ok();
    response
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"));
    if replayed {
        response.insert_header(("Idempotent-Replayed", "true"));
    }
    response.body(body.freeze())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_three_lines_and_a_blank_one() {
        let bytes = encode(
            Some(FrameId { turn: 7, n: 2 }),
            &ThreadEvent::Token {
                delta: "a\nb".into(),
            },
        );
        assert_eq!(
            std::str::from_utf8(&bytes).unwrap(),
            "id: 7.2\nevent: token\ndata: {\"delta\":\"a\\nb\"}\n\n"
        );
        assert_eq!(KEEP_ALIVE_LINE, b": keep-alive\n");
    }

    #[test]
    fn ids_are_written_in_decimal() {
        for (turn, n) in [(0, 0), (7, 2), (10, 100), (u64::MAX, u64::MAX)] {
            let mut out = BytesMut::new();
            write_id(&mut out, Some(FrameId { turn, n }));
            assert_eq!(out, format!("id: {turn}.{n}\n").as_bytes());
        }
    }

    #[test]
    fn a_token_frame_is_what_the_event_serializer_writes() {
        for delta in [
            "plain ",
            "quote \" back\\ slash",
            "ctl \u{1}\t\r",
            "é ✓ 😀",
            "",
        ] {
            let token = ThreadEvent::Token {
                delta: delta.into(),
            };
            for id in [None, Some(FrameId { turn: 3, n: 41 })] {
                let mut fast = BytesMut::new();
                encode_into(&mut fast, id, &token);
                let mut general = BytesMut::new();
                encode_data(&mut general, id, token.name(), &token);
                assert_eq!(fast, general, "{delta:?}");
            }
        }
    }

    #[test]
    fn a_stream_writes_its_batches_from_one_reused_buffer() {
        let token = ThreadEvent::Token {
            delta: "word ".into(),
        };
        let mut buf = BytesMut::new();
        let batch = |buf: &mut BytesMut| {
            buf.reserve(FRAME_ROOM);
            encode_for(buf, Some(FrameId { turn: 1, n: 1 }), &token, false);
            buf.split().freeze()
        };
        let first = batch(&mut buf);
        let at = first.as_ptr();
        // The connection copies a batch and drops it: the next batch is
        // written into the same memory.
        drop(first);
        let second = batch(&mut buf);
        assert_eq!(second.as_ptr(), at, "a new allocation for the second batch");
        assert!(second.starts_with(b"id: 1.1\nevent: token\n"));
    }
}
