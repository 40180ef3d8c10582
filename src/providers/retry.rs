//! How failed vendor requests are retried (429, 5xx, 529, connection
//! failures; only before the first byte of an answer, honouring the vendor's
//! `retry-after-ms` / `Retry-After`), within one first-byte budget, and the
//! one immediate resend without optional fields a server refused.

use std::sync::Arc;
use std::time::Duration;

use confer_actors::ModelError;
use confer_actors::codes;
use reqwest::header::{HeaderMap, RETRY_AFTER};
use reqwest::{RequestBuilder, Response, StatusCode};

use super::vendor::{classify_status, classify_transport, error_message};

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

/// Whether a vendor's refusal (a 400's message) names an optional field
/// the request can go without (see [`RetryPolicy::send`]).
pub type FieldCheck = Arc<dyn Fn(&str) -> bool + Send + Sync>;

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
    ModelError::new(
        codes::PROVIDER_TIMEOUT,
        "the vendor did not start answering in time",
    )
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

#[cfg(test)]
mod tests {
    use super::*;

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
