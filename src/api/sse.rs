//! Server-Sent Events out of a frame reader (`streams.md`).
//!
//! Written here rather than with actix-web-lab's `Sse` because the contract's
//! keep-alive is a single comment line with **no** blank line after it (a
//! blank line after a comment makes fetch-event-source deliver an empty
//! message), and the first frame of every stream must be a real event; the
//! encoding itself is three lines per event.

use std::time::Duration;

use actix_web::HttpResponse;
use actix_web::http::header;
use bytes::Bytes;
use confer_actors::{Frame, FrameReader, ThreadEvent};

/// The keep-alive comment: one line, no blank line after it.
const KEEP_ALIVE_LINE: &[u8] = b": keep-alive\n";

/// One SSE event: `id:` (when the frame has one), `event:`, `data:`.
pub fn encode(id: Option<&str>, event: &ThreadEvent) -> Bytes {
    // Serializing these plain structs cannot fail; an empty object is a safe fallback.
    let data = serde_json::to_string(event).unwrap_or_else(|_| "{}".to_owned());
    let mut out = String::with_capacity(data.len() + 48);
    if let Some(id) = id {
        out.push_str("id: ");
        out.push_str(id);
        out.push('\n');
    }
    out.push_str("event: ");
    out.push_str(event.name());
    out.push_str("\ndata: ");
    out.push_str(&data);
    out.push_str("\n\n");
    Bytes::from(out)
}

fn encode_frame(frame: &Frame) -> Bytes {
    encode(frame.id.map(|id| id.to_string()).as_deref(), &frame.event)
}

/// What the stream sends before the reader's frames (a follow stream's
/// `watching`).
pub struct Preamble(pub Option<Bytes>);

/// The SSE response relaying `reader` to its end, a keep-alive after each
/// `keep_alive` without a frame (it keeps proxies from closing the stream).
pub fn response(
    preamble: Preamble,
    reader: FrameReader,
    keep_alive: Duration,
    replayed: bool,
) -> HttpResponse {
    struct State {
        reader: FrameReader,
        first: Option<Bytes>,
    }
    let state = State {
        reader,
        first: preamble.0,
    };
    let body = futures_util::stream::unfold(state, move |mut state| async move {
        if let Some(first) = state.first.take() {
            return Some((Ok::<_, std::convert::Infallible>(first), state));
        }
        // `FrameReader::next` keeps its place across a timed-out wait.
        match tokio::time::timeout(keep_alive, state.reader.next()).await {
            Ok(Some(frame)) => Some((Ok(encode_frame(&frame)), state)),
            Ok(None) => None,
            Err(_) => Some((Ok(Bytes::from_static(KEEP_ALIVE_LINE)), state)),
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

/// A stream of `events` made for one answer (a repeated keyed send whose
/// turn is no longer kept), marked `Idempotent-Replayed`.
pub fn replay(events: &[ThreadEvent]) -> HttpResponse {
    let body: Vec<u8> = events
        .iter()
        .flat_map(|event| encode(None, event).to_vec())
        .collect();
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .insert_header(("Idempotent-Replayed", "true"))
        .body(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_three_lines_and_a_blank_one() {
        let bytes = encode(
            Some("7.2"),
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
}
