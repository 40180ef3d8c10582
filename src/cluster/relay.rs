//! The relay of a thread's stream from its owner to the client that
//! reached another node (`scale.md` §4): bytes as they come, read only as
//! fast as the client reads. When the upstream breaks before `done` (a
//! `follow` stream at any time; 45 s of silence counts), the relay
//! reattaches with `GET …/stream`, the last relayed id as `Last-Event-ID`,
//! and the same `follow`, at whichever node owns the thread by then: the
//! client sees one stream, told by the new owner what it missed.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use confer_actors::{DoneEvent, ThreadEvent};
use futures_util::{Stream, StreamExt};

use super::Shard;
use super::forward::{OwnerRequest, to_owner};
use super::serving::Membership;
use crate::api::sse;

/// Upstream silence taken as a break (keep-alives come far more often).
const SILENCE: Duration = Duration::from_secs(45);
/// Reattaches one relayed stream makes at most: a peer that keeps
/// breaking is not chased for ever.
const MAX_REATTACHES: u32 = 8;
/// The longest line start kept while scanning: enough for `id:` and
/// `event:` lines; a token's long `data:` line is not copied.
const LINE_KEPT: usize = 64;

/// What the relay has seen of an SSE stream: the id of the last whole
/// event relayed, and whether a `done` was among them.
#[derive(Debug, Default)]
pub struct Seen {
    line: Vec<u8>,
    event_id: Option<String>,
    event_done: bool,
    /// The id of the last whole event relayed.
    pub last_id: Option<String>,
    /// Whether a whole `done` event was relayed.
    pub done: bool,
}

impl Seen {
    /// Takes in relayed bytes.
    pub fn feed(&mut self, mut bytes: &[u8]) {
        while let Some(end) = bytes.iter().position(|b| *b == b'\n') {
            self.keep(&bytes[..end]);
            self.end_line();
            bytes = &bytes[end + 1..];
        }
        self.keep(bytes);
    }

    fn keep(&mut self, part: &[u8]) {
        let room = LINE_KEPT.saturating_sub(self.line.len());
        self.line.extend_from_slice(&part[..part.len().min(room)]);
    }

    fn end_line(&mut self) {
        let line = std::mem::take(&mut self.line);
        let line = line.strip_suffix(b"\r").unwrap_or(&line);
        if line.is_empty() {
            if let Some(id) = self.event_id.take() {
                self.last_id = Some(id);
            }
            self.done |= std::mem::take(&mut self.event_done);
        } else if let Some(id) = line.strip_prefix(b"id:") {
            self.event_id = Some(String::from_utf8_lossy(id).trim().to_owned());
        } else if let Some(name) = line.strip_prefix(b"event:") {
            self.event_done = name.trim_ascii() == b"done";
        }
    }
}

type Upstream = Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

/// A relayed stream that reattaches when its upstream breaks.
pub struct Reattaching {
    pub cluster: Arc<Membership>,
    pub shard: Shard,
    /// `…/stream` (with `follow=true` for a follow stream), with the
    /// caller's headers.
    pub reattach: OwnerRequest,
    pub follow: bool,
    pub wait: Duration,
}

/// The relayed body of `upstream`, reattaching as [`Reattaching`] says.
pub fn body(
    upstream: reqwest::Response,
    how: Reattaching,
) -> impl Stream<Item = Result<Bytes, std::io::Error>> {
    struct State {
        upstream: Option<Upstream>,
        how: Reattaching,
        seen: Seen,
        reattaches: u32,
    }
    let state = State {
        upstream: Some(Box::pin(upstream.bytes_stream())),
        how,
        seen: Seen::default(),
        reattaches: 0,
    };
    futures_util::stream::unfold(state, |mut state| async move {
        loop {
            let upstream = state.upstream.as_mut()?;
            match tokio::time::timeout(SILENCE, upstream.next()).await {
                Ok(Some(Ok(bytes))) => {
                    state.seen.feed(&bytes);
                    return Some((Ok(bytes), state));
                }
                Ok(None) if state.seen.done && !state.how.follow => return None,
                // Broken, ended early, or silent: reattach.
                _ => {}
            }
            state.upstream = None;
            if state.reattaches >= MAX_REATTACHES {
                return None;
            }
            state.reattaches += 1;
            match reattach(&state.how, state.seen.last_id.as_deref()).await {
                Reattached::Stream(upstream) => state.upstream = Some(upstream),
                Reattached::Over => return None,
                Reattached::Ending(bytes) => return Some((Ok(bytes), state)),
            }
        }
    })
}

/// What a reattach came to.
enum Reattached {
    /// The owner's stream, relayed on.
    Stream(Upstream),
    /// Nothing more to relay.
    Over,
    /// The stream's last frames, made here (the owner refused).
    Ending(Bytes),
}

async fn reattach(how: &Reattaching, last_id: Option<&str>) -> Reattached {
    let mut request = how.reattach.clone();
    if let Some(id) = last_id {
        if let Ok(value) = reqwest::header::HeaderValue::from_str(id) {
            request.headers.insert("last-event-id", value);
        }
    } else if !how.follow {
        // A turn's stream with nothing relayed yet has no place to resume.
        return Reattached::Ending(ending(
            "OWNER_UNAVAILABLE",
            "the node running this turn stopped",
            false,
        ));
    }
    tracing::info!(
        shard = how.shard.number(),
        last_id,
        "reattaching a relayed stream"
    );
    let answer = match to_owner(&how.cluster, &request, how.shard, how.wait).await {
        Ok(answer) => answer,
        Err(_) if how.follow => return Reattached::Over,
        Err(_) => {
            return Reattached::Ending(ending(
                "OWNER_UNAVAILABLE",
                "the node owning this thread did not answer; read the thread's messages",
                false,
            ));
        }
    };
    match answer.status().as_u16() {
        200 => Reattached::Stream(Box::pin(answer.bytes_stream())),
        _ if how.follow => Reattached::Over,
        204 => Reattached::Over,
        409 => Reattached::Ending(ending(
            "STREAM_GAP",
            "this stream fell behind the frames kept; read the thread's messages",
            true,
        )),
        _ => Reattached::Ending(ending(
            "INTERNAL",
            "the stream could not be reattached; read the thread's messages",
            false,
        )),
    }
}

/// An id-less `error {code}` and `done {ok:false}`.
fn ending(code: &str, detail: &str, gap: bool) -> Bytes {
    let error = ThreadEvent::Error {
        code: code.into(),
        detail: Some(detail.into()),
    };
    let done = ThreadEvent::Done(Box::new(DoneEvent {
        gap: gap.then_some(true),
        ..DoneEvent::failed(String::new())
    }));
    let mut out = sse::encode(None, &error).to_vec();
    out.extend_from_slice(&sse::encode(None, &done));
    Bytes::from(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_whole_event_id_and_done_are_seen_across_chunks() {
        let mut seen = Seen::default();
        seen.feed(b"id: 3.0\nevent: meta\ndata: {}\n\nid: 3.1\nevent: tok");
        assert_eq!(seen.last_id.as_deref(), Some("3.0"));
        seen.feed(b"en\ndata: {\"delta\":\"");
        seen.feed("x".repeat(10_000).as_bytes());
        seen.feed(b"\"}\n\n: keep-alive\n");
        assert_eq!(seen.last_id.as_deref(), Some("3.1"));
        assert!(!seen.done);
        seen.feed(b"id: 3.2\nevent: done\ndata: {\"ok\":true}\n");
        assert!(!seen.done, "an event counts once whole");
        seen.feed(b"\n");
        assert!(seen.done);
        assert_eq!(seen.last_id.as_deref(), Some("3.2"));
        assert!(seen.line.len() <= LINE_KEPT);
    }

    #[test]
    fn an_id_less_event_keeps_the_last_id() {
        let mut seen = Seen::default();
        seen.feed(b"id: 1.4\nevent: token\ndata: {}\n\nevent: error\ndata: {}\n\nevent: done\ndata: {}\n\n");
        assert_eq!(seen.last_id.as_deref(), Some("1.4"));
        assert!(seen.done);
    }
}
