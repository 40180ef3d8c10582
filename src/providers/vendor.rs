//! What every vendor provider shares besides its HTTP client (`client.rs`)
//! and its retries (`retry.rs`): the mapping of failures to the stream's
//! error codes, and the driver that turns a vendor's SSE body into
//! `ModelEvent`s through a per-vendor [`WireParser`].

use std::collections::VecDeque;
use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use confer_actors::codes;
use confer_actors::{ModelError, ModelEvent, ModelStream};
use futures_util::{Stream, StreamExt, TryStreamExt};
use reqwest::{RequestBuilder, StatusCode};

use super::retry::{FieldCheck, RetryPolicy};
use super::sse_decoder::{SseDecoder, WireEvent};

/// A transport failure while reading a body.
#[derive(Debug)]
pub struct TransportError {
    pub timeout: bool,
    pub message: String,
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<reqwest::Error> for TransportError {
    fn from(error: reqwest::Error) -> Self {
        Self {
            timeout: error.is_timeout(),
            message: error.without_url().to_string(),
        }
    }
}

/// Whether a refusal is for the request's length: Anthropic's `prompt is
/// too long`, OpenAI's `context_length_exceeded` (its message names the
/// maximum context length), or a 400 naming `maximum context length` or
/// `context window` as vLLM and llama.cpp answer.
fn is_too_long(status: StatusCode, message: &str) -> bool {
    let message = message.to_ascii_lowercase();
    matches!(status.as_u16(), 400 | 413)
        && [
            "prompt is too long",
            "context_length_exceeded",
            "maximum context length",
            "context window",
        ]
        .iter()
        .any(|needle| message.contains(needle))
}

/// A vendor's HTTP failure as a stream error, and whether to retry it.
/// `message` is the vendor's error message, already extracted from its
/// body. A fallback model may replace the call (`ModelError::replaceable`)
/// when the vendor refused it (403), does not know the model (404, or a 400
/// whose message names a model) or is rate limiting or down (429, 5xx: once
/// retries are spent, which is when the error is returned).
pub fn classify_status(status: StatusCode, message: &str) -> (ModelError, bool) {
    let detail = |what: &str| {
        if message.is_empty() {
            format!("{what} (HTTP {})", status.as_u16())
        } else {
            format!("{what} (HTTP {}): {message}", status.as_u16())
        }
    };
    if is_too_long(status, message) {
        let detail = detail("the conversation is longer than the model's context window");
        return (ModelError::new(codes::CONTEXT_TOO_LONG, detail), false);
    }
    match status.as_u16() {
        // The vendor's words may quote part of the key: never relay them.
        401 => (
            ModelError::new(codes::PROVIDER_AUTH, refused_key(status)),
            false,
        ),
        403 => (
            ModelError::new(codes::PROVIDER_AUTH, refused_key(status)).replaceable(),
            false,
        ),
        429 => (
            ModelError::new(
                codes::PROVIDER_RATE_LIMITED,
                detail("the vendor is rate limiting"),
            )
            .replaceable(),
            true,
        ),
        408 | 504 => (
            ModelError::new(codes::PROVIDER_TIMEOUT, detail("the vendor timed out")).replaceable(),
            true,
        ),
        500..=599 => (
            ModelError::new(
                codes::PROVIDER_UNAVAILABLE,
                detail("the vendor is unavailable"),
            )
            .replaceable(),
            true,
        ),
        404 => (
            ModelError::model(detail("the vendor does not know the model")).replaceable(),
            false,
        ),
        400 if names_a_model(message) => (
            ModelError::model(detail("the vendor rejected the model")).replaceable(),
            false,
        ),
        _ => (
            ModelError::model(detail("the vendor rejected the request")),
            false,
        ),
    }
}

fn refused_key(status: StatusCode) -> String {
    format!("the vendor refused the API key (HTTP {})", status.as_u16())
}

/// Whether a 400's message is about the model (OpenAI's and vLLM's "The
/// model `x` does not exist", Ollama's "model 'x' not found").
fn names_a_model(message: &str) -> bool {
    message.to_ascii_lowercase().contains("model")
}

pub(super) fn classify_transport(error: &reqwest::Error) -> (ModelError, bool) {
    if error.is_timeout() {
        let error = ModelError::new(codes::PROVIDER_TIMEOUT, "the vendor did not answer in time");
        (error, true)
    } else {
        // A vendor that cannot be reached is down: a fallback may answer.
        let error = ModelError::new(codes::PROVIDER_UNAVAILABLE, "could not reach the vendor");
        (error.replaceable(), true)
    }
}

/// The `message` of a vendor error body (both vendors nest it in `error`).
pub fn error_message(body: &str) -> String {
    let message = serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(str::to_owned))
        .unwrap_or_default();
    message.chars().take(300).collect()
}

/// A vendor's stream format: SSE events in, model events out (pushed onto
/// `out`, so a token costs no list of its own).
pub trait WireParser: Send + Unpin + 'static {
    /// The model events of one SSE event.
    fn on_event(&mut self, event: &WireEvent<'_>, out: &mut VecDeque<ModelEvent>);
    /// The body ended: the final events (an error when it ended too early).
    fn on_end(&mut self, out: &mut VecDeque<ModelEvent>);
    /// Whether the answer is complete (nothing after it is read).
    fn finished(&self) -> bool;
}

/// The answer ended without its vendor's end marker.
pub fn truncated() -> ModelEvent {
    ModelEvent::Error(ModelError::new(
        codes::PROVIDER_UNAVAILABLE,
        "the vendor's stream ended before the answer was complete",
    ))
}

/// A chunk that is not JSON, or whose known fields have the wrong type: the
/// model call fails (vendor-options.md, "Stream correctness"), since skipping
/// it would store an answer with a hole in it.
pub fn malformed() -> ModelEvent {
    ModelEvent::Error(ModelError::model(
        "the vendor sent a malformed stream chunk",
    ))
}

/// Whether `value` is absent, `null` or a string (a known text field's
/// acceptable shapes).
pub fn string_or_absent(value: &serde_json::Value) -> bool {
    value.is_null() || value.is_string()
}

/// Decodes an SSE body with `parser`; correct however the bytes are split.
pub fn wire_events<S, P>(bytes: S, parser: P) -> WireEvents<S, P>
where
    S: Stream<Item = Result<Bytes, TransportError>> + Send + Unpin + 'static,
    P: WireParser,
{
    WireEvents {
        bytes,
        decoder: SseDecoder::default(),
        parser,
        pending: VecDeque::new(),
        ended: false,
    }
}

/// The model events of a vendor's body: each chunk is decoded in place and
/// its events parsed into a queue the stream hands out one by one (the
/// queue, like the decoder's buffers, is reused for the whole answer).
pub struct WireEvents<S, P> {
    bytes: S,
    decoder: SseDecoder,
    parser: P,
    pending: VecDeque<ModelEvent>,
    /// Nothing more is read: the answer is complete, failed, or ended.
    ended: bool,
}

impl<S, P> WireEvents<S, P>
where
    P: WireParser,
{
    /// Decodes one chunk of the body into `pending`.
    fn chunk(&mut self, chunk: &[u8]) {
        let Self {
            decoder,
            parser,
            pending,
            ..
        } = self;
        let decoded = decoder.feed(chunk, |event| {
            // Whatever follows the end of the answer is not read.
            if !parser.finished() {
                parser.on_event(&event, pending);
            }
        });
        if decoded.is_err() && !parser.finished() {
            // Not UTF-8, or an event past its bound, before the answer was
            // complete: the answer is broken. (Bytes after its end are not
            // the answer's, whatever they are.)
            pending.push_back(malformed());
            self.ended = true;
        }
        if self.parser.finished() {
            self.ended = true;
        }
    }
}

impl<S, P> Stream for WireEvents<S, P>
where
    S: Stream<Item = Result<Bytes, TransportError>> + Unpin,
    P: WireParser,
{
    type Item = ModelEvent;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<ModelEvent>> {
        let this = self.get_mut();
        loop {
            if let Some(event) = this.pending.pop_front() {
                return Poll::Ready(Some(event));
            }
            if this.ended {
                return Poll::Ready(None);
            }
            match std::task::ready!(this.bytes.poll_next_unpin(cx)) {
                Some(Ok(chunk)) => this.chunk(&chunk),
                Some(Err(error)) => {
                    let error = if error.timeout {
                        ModelError::new(codes::PROVIDER_TIMEOUT, "the vendor's stream stalled")
                    } else {
                        ModelError::new(
                            codes::PROVIDER_UNAVAILABLE,
                            "the connection to the vendor was lost mid-answer",
                        )
                    };
                    this.pending.push_back(ModelEvent::Error(error));
                    this.ended = true;
                }
                None => {
                    this.parser.on_end(&mut this.pending);
                    this.ended = true;
                }
            }
        }
    }
}

/// A request builder that can be called again for each retry.
pub type RequestFactory = Arc<dyn Fn() -> RequestBuilder + Send + Sync>;

/// Sends the request (with retries) and decodes its stream with `parser`.
/// Dropping the stream drops the response, which closes the connection.
pub fn vendor_stream<P: WireParser>(
    retry: RetryPolicy,
    request: RequestFactory,
    refused_field: Option<FieldCheck>,
    parser: P,
) -> ModelStream {
    let connect = async move { retry.send(&*request, refused_field.as_ref()).await };
    let mut parser = Some(parser);
    Box::pin(
        futures_util::stream::once(connect).flat_map(move |response| -> ModelStream {
            match (response, parser.take()) {
                (Ok(response), Some(parser)) => {
                    let bytes = response.bytes_stream().map_err(TransportError::from);
                    let accepted = futures_util::stream::iter([ModelEvent::Accepted]);
                    Box::pin(accepted.chain(wire_events(Box::pin(bytes), parser)))
                }
                (Err(error), _) => Box::pin(futures_util::stream::iter([ModelEvent::Error(error)])),
                (Ok(_), None) => Box::pin(futures_util::stream::empty()),
            }
        }),
    )
}

#[cfg(test)]
pub mod testing {
    //! Feeds a recorded stream to a parser split at every byte position.

    use super::*;

    /// Every model event of `body` decoded in one piece.
    pub async fn decode_whole<P: WireParser>(body: &[u8], parser: P) -> Vec<ModelEvent> {
        let chunks = vec![Ok(Bytes::copy_from_slice(body))];
        wire_events(futures_util::stream::iter(chunks), parser)
            .collect()
            .await
    }

    /// Asserts that `body` split in two at every position decodes the same.
    pub async fn assert_split_invariant<P: WireParser>(body: &[u8], parser: impl Fn() -> P) {
        let whole = decode_whole(body, parser()).await;
        for at in 1..body.len() {
            let chunks = vec![
                Ok(Bytes::copy_from_slice(&body[..at])),
                Ok(Bytes::copy_from_slice(&body[at..])),
            ];
            let split: Vec<ModelEvent> = wire_events(futures_util::stream::iter(chunks), parser())
                .collect()
                .await;
            assert_eq!(split, whole, "split at byte {at}");
        }
        // And one byte per read.
        let bytes: Vec<_> = body
            .iter()
            .map(|b| Ok(Bytes::copy_from_slice(&[*b])))
            .collect();
        let trickle: Vec<ModelEvent> = wire_events(futures_util::stream::iter(bytes), parser())
            .collect()
            .await;
        assert_eq!(trickle, whole, "one byte per read");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_stream_codes() {
        let code = |s: u16| {
            classify_status(StatusCode::from_u16(s).unwrap(), "m")
                .0
                .code
                .code
        };
        assert_eq!(code(401), "PROVIDER_AUTH");
        assert_eq!(code(403), "PROVIDER_AUTH");
        assert_eq!(code(429), "PROVIDER_RATE_LIMITED");
        assert_eq!(code(500), "PROVIDER_UNAVAILABLE");
        assert_eq!(code(529), "PROVIDER_UNAVAILABLE");
        assert_eq!(code(504), "PROVIDER_TIMEOUT");
        assert_eq!(code(400), "MODEL_ERROR");
        assert!(
            !classify_status(StatusCode::UNAUTHORIZED, "key sk-abc")
                .0
                .detail
                .contains("sk-abc")
        );
        assert!(classify_status(StatusCode::TOO_MANY_REQUESTS, "").1);
        assert!(!classify_status(StatusCode::BAD_REQUEST, "").1);
    }
}
