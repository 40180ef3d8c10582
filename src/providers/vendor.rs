//! What every vendor provider shares besides its HTTP client (`client.rs`):
//! the retry policy (429, 5xx, 529, connection failures; only before the
//! first byte of an answer, honouring Retry-After), the mapping of failures
//! to the stream's error codes, and the driver that turns a vendor's SSE
//! body into `ModelEvent`s through a per-vendor [`WireParser`].

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use confer_actors::codes;
use confer_actors::{ModelError, ModelEvent, ModelStream};
use eventsource_stream::{Event, Eventsource};
use futures_util::{Stream, StreamExt, TryStreamExt};
use reqwest::header::{HeaderMap, RETRY_AFTER};
use reqwest::{RequestBuilder, Response, StatusCode};

/// How failed vendor requests are retried.
#[derive(Clone, Debug)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// First backoff; doubled each retry, plus up to half of it as jitter.
    pub base_delay: Duration,
    /// A longer wait (backoff or Retry-After) is not waited: the call fails.
    pub max_delay: Duration,
    /// The answer must start (response headers) within this, all attempts
    /// and waits included, or the call fails with `PROVIDER_TIMEOUT`.
    pub first_byte_timeout: Duration,
}

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
/// `message` is the vendor's error message, already extracted from its body.
pub fn classify_status(status: StatusCode, message: &str) -> (ModelError, bool) {
    let detail = |what: &str| {
        if message.is_empty() {
            format!("{what} (HTTP {})", status.as_u16())
        } else {
            format!("{what} (HTTP {}): {message}", status.as_u16())
        }
    };
    if is_too_long(status, message) {
        return (
            ModelError {
                code: codes::CONTEXT_TOO_LONG,
                detail: detail("the conversation is longer than the model's context window"),
            },
            false,
        );
    }
    match status.as_u16() {
        // The vendor's words may quote part of the key: never relay them.
        401 | 403 => (
            ModelError {
                code: codes::PROVIDER_AUTH,
                detail: format!("the vendor refused the API key (HTTP {})", status.as_u16()),
            },
            false,
        ),
        429 => (
            ModelError {
                code: codes::PROVIDER_RATE_LIMITED,
                detail: detail("the vendor is rate limiting"),
            },
            true,
        ),
        408 | 504 => (
            ModelError {
                code: codes::PROVIDER_TIMEOUT,
                detail: detail("the vendor timed out"),
            },
            true,
        ),
        500..=599 => (
            ModelError {
                code: codes::PROVIDER_UNAVAILABLE,
                detail: detail("the vendor is unavailable"),
            },
            true,
        ),
        _ => (
            ModelError::model(detail("the vendor rejected the request")),
            false,
        ),
    }
}

fn classify_transport(error: &reqwest::Error) -> (ModelError, bool) {
    if error.is_timeout() {
        (
            ModelError {
                code: codes::PROVIDER_TIMEOUT,
                detail: "the vendor did not answer in time".into(),
            },
            true,
        )
    } else {
        (
            ModelError {
                code: codes::PROVIDER_UNAVAILABLE,
                detail: "could not reach the vendor".into(),
            },
            true,
        )
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

/// The wait a vendor asked for: `retry-after-ms` (milliseconds, OpenAI's),
/// else `retry-after` in seconds or as an HTTP date.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let header = |name: &str| headers.get(name)?.to_str().ok().map(str::trim);
    let seconds = |value: &str| {
        value
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s >= 0.0)
    };
    if let Some(ms) = header("retry-after-ms").and_then(seconds) {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let value = header(RETRY_AFTER.as_str())?;
    if let Some(s) = seconds(value) {
        return Some(Duration::from_secs_f64(s));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(
        at.duration_since(std::time::SystemTime::now())
            .unwrap_or_default(),
    )
}

/// The answer did not start within the first-byte budget.
fn first_byte_timeout() -> ModelError {
    ModelError {
        code: codes::PROVIDER_TIMEOUT,
        detail: "the vendor did not start answering in time".into(),
    }
}

fn jitter(up_to: Duration) -> Duration {
    let mut bytes = [0u8; 4];
    let _ = getrandom::fill(&mut bytes);
    let fraction = f64::from(u32::from_le_bytes(bytes)) / f64::from(u32::MAX);
    up_to.mul_f64(fraction)
}

impl RetryPolicy {
    /// Sends `build()` until it succeeds, fails for good, or retries or the
    /// first-byte budget run out.
    ///
    /// `refused_field` reads a 400's message: when it says the server
    /// refused an optional field (and so that `build` leaves it out from
    /// now on), the request is sent again at once, one time.
    pub async fn send(
        &self,
        build: &(dyn Fn() -> RequestBuilder + Send + Sync),
        refused_field: Option<&FieldCheck>,
    ) -> Result<Response, ModelError> {
        let deadline = tokio::time::Instant::now() + self.first_byte_timeout;
        let mut attempt = 0u32;
        let mut resent_without_fields = false;
        loop {
            let sent = tokio::time::timeout_at(deadline, async {
                match build().send().await {
                    Ok(response) if response.status().is_success() => Ok(response),
                    Ok(response) => {
                        let status = response.status();
                        let wait = retry_after(response.headers());
                        let body = response.text().await.unwrap_or_default();
                        let message = error_message(&body);
                        let refused = status == StatusCode::BAD_REQUEST
                            && refused_field.is_some_and(|check| check(&message));
                        let (error, retryable) = classify_status(status, &message);
                        Err((error, retryable, wait, refused))
                    }
                    Err(error) => {
                        let (error, retryable) = classify_transport(&error);
                        Err((error, retryable, None, false))
                    }
                }
            })
            .await;
            let (error, retryable, wait, refused) = match sent {
                Err(_elapsed) => return Err(first_byte_timeout()),
                Ok(Ok(response)) => return Ok(response),
                Ok(Err(failed)) => failed,
            };
            if refused && !resent_without_fields {
                resent_without_fields = true;
                continue;
            }
            if !retryable || attempt >= self.max_retries {
                return Err(error);
            }
            let backoff = self.base_delay.saturating_mul(1 << attempt.min(16));
            let delay = wait.unwrap_or_else(|| backoff + jitter(self.base_delay / 2));
            if delay > self.max_delay {
                return Err(error);
            }
            // A wait that outlasts the budget is cut to it: the budget, not
            // the vendor's hint, bounds how long a client waits.
            let remaining = deadline.saturating_duration_since(tokio::time::Instant::now());
            if delay >= remaining {
                tokio::time::sleep(remaining).await;
                return Err(first_byte_timeout());
            }
            tracing::warn!(
                code = error.code.code,
                attempt,
                ?delay,
                "retrying a vendor request"
            );
            tokio::time::sleep(delay).await;
            attempt += 1;
        }
    }
}

/// A vendor's stream format: SSE events in, model events out.
pub trait WireParser: Send + 'static {
    /// The model events of one SSE event.
    fn on_event(&mut self, event: &Event) -> Vec<ModelEvent>;
    /// The body ended: the final events (an error when it ended too early).
    fn on_end(&mut self) -> Vec<ModelEvent>;
    /// Whether the answer is complete (nothing after it is read).
    fn finished(&self) -> bool;
}

/// The answer ended without its vendor's end marker.
pub fn truncated() -> ModelEvent {
    ModelEvent::Error(ModelError {
        code: codes::PROVIDER_UNAVAILABLE,
        detail: "the vendor's stream ended before the answer was complete".into(),
    })
}

/// A chunk that is not JSON, or whose known fields have the wrong type: the
/// model call fails (vendor-options.md, "Stream correctness"), since skipping
/// it would store an answer with a hole in it.
pub fn malformed() -> ModelEvent {
    ModelEvent::Error(ModelError {
        code: codes::MODEL_ERROR,
        detail: "the vendor sent a malformed stream chunk".into(),
    })
}

/// Whether `value` is absent, `null` or a string (a known text field's
/// acceptable shapes).
pub fn string_or_absent(value: &serde_json::Value) -> bool {
    value.is_null() || value.is_string()
}

/// Decodes an SSE body with `parser`; correct however the bytes are split.
pub fn wire_events<S, P>(bytes: S, parser: P) -> impl Stream<Item = ModelEvent> + Send
where
    S: Stream<Item = Result<Bytes, TransportError>> + Send + Unpin + 'static,
    P: WireParser,
{
    let events = bytes.eventsource();
    futures_util::stream::unfold(Some((events, parser)), |state| async move {
        let (mut events, mut parser) = state?;
        match events.next().await {
            Some(Ok(event)) => {
                let out = parser.on_event(&event);
                let next = (!parser.finished()).then_some((events, parser));
                Some((out, next))
            }
            Some(Err(error)) => {
                let timeout = matches!(&error, eventsource_stream::EventStreamError::Transport(t) if t.timeout);
                let error = if timeout {
                    ModelError {
                        code: codes::PROVIDER_TIMEOUT,
                        detail: "the vendor's stream stalled".into(),
                    }
                } else {
                    ModelError {
                        code: codes::PROVIDER_UNAVAILABLE,
                        detail: "the connection to the vendor was lost mid-answer".into(),
                    }
                };
                Some((vec![ModelEvent::Error(error)], None))
            }
            None => Some((parser.on_end(), None)),
        }
    })
    .flat_map(futures_util::stream::iter)
}

/// A request builder that can be called again for each retry.
pub type RequestFactory = Arc<dyn Fn() -> RequestBuilder + Send + Sync>;

/// Whether a vendor's refusal (a 400's message) names an optional field
/// the request can go without (see [`RetryPolicy::send`]).
pub type FieldCheck = Arc<dyn Fn(&str) -> bool + Send + Sync>;

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

    #[test]
    fn retry_after_is_read_in_seconds_milliseconds_or_a_date() {
        let mut headers = HeaderMap::new();
        headers.insert(RETRY_AFTER, "2".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
        headers.insert(RETRY_AFTER, "soon".parse().unwrap());
        assert_eq!(retry_after(&headers), None);
        let in_a_minute =
            httpdate::fmt_http_date(std::time::SystemTime::now() + Duration::from_secs(60));
        headers.insert(RETRY_AFTER, in_a_minute.parse().unwrap());
        let wait = retry_after(&headers).unwrap();
        assert!(wait > Duration::from_secs(55) && wait <= Duration::from_secs(60));
        headers.insert("retry-after-ms", "1500".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(1500)));
    }
}
