//! Completion webhooks (`runners.md` Completion webhooks): a runner's
//! run status changes posted to its `completion_webhook.url`, signed as
//! Standard Webhooks sign them (OpenAI's scheme), so the `standardwebhooks`
//! libraries verify them. A delivery is written in the transaction of the
//! change it reports (`crate::store::runners::deliveries`); `deliveries`
//! is the worker that sends, retries with backoff, and records each
//! attempt in the delivery log (`GET /api/runners/{id}/deliveries`).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, Utc};
use confer_actors::{OrgId, RunId, RunnerId};
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use uuid::Uuid;

use crate::runners::RunStatus;

pub mod deliveries;

/// The prefix of a completion secret.
pub const SECRET_PREFIX: &str = "whsec_";
/// Deliveries pending per org; past it a new one is `failed`, `queue full`.
pub const MAX_PENDING_PER_ORG: u64 = 10_000;
/// Waits before each retry (seconds), ±10%; then `failed`.
pub const RETRY_AFTER_SECS: [u64; 7] = [5, 30, 120, 600, 3_600, 10_800, 21_600];

/// The event a run's new status reports, if any.
pub fn event_of(status: RunStatus) -> Option<&'static str> {
    Some(match status {
        RunStatus::Succeeded => "run.succeeded",
        RunStatus::Failed => "run.failed",
        RunStatus::Cancelled => "run.cancelled",
        RunStatus::Expired => "run.expired",
        RunStatus::Paused => "run.paused",
        RunStatus::RequiresAction => "run.requires_action",
        RunStatus::Queued | RunStatus::Running => return None,
    })
}

/// A delivery's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryStatus {
    Pending,
    Delivered,
    Failed,
}

/// One delivery, as the log answers it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Delivery {
    /// The `webhook-id`: `UUIDv5(run, "{event}.{occurrence}")`, the same
    /// on every attempt.
    pub id: Uuid,
    #[schema(value_type = uuid::Uuid)]
    pub run_id: RunId,
    pub event: String,
    pub status: DeliveryStatus,
    pub attempts: u32,
    pub last_status_code: Option<u16>,
    pub last_error: Option<String>,
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

/// A delivery as stored: what the worker needs besides the log entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeliveryRecord {
    #[serde(flatten)]
    pub delivery: Delivery,
    pub org_id: OrgId,
    pub runner_id: RunnerId,
    /// `{type, timestamp, data: Run}`, fixed when the change was made.
    pub body: String,
}

/// The id of a run's `occurrence`-th delivery of `event`.
pub fn delivery_id(run: RunId, event: &str, occurrence: u32) -> Uuid {
    Uuid::new_v5(&run.0, format!("{event}.{occurrence}").as_bytes())
}

/// A new completion secret: `whsec_` and the base64 of 32 random bytes.
pub fn new_secret() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(format!("{SECRET_PREFIX}{}", STANDARD.encode(bytes)))
}

/// `webhook-signature`: `v1,` and the base64 HMAC-SHA256, keyed by the
/// secret's decoded bytes, of `{id}.{timestamp}.{body}`.
pub fn signature(secret: &str, id: &str, timestamp: i64, body: &str) -> Option<String> {
    let key = STANDARD
        .decode(secret.strip_prefix(SECRET_PREFIX).unwrap_or(secret))
        .ok()?;
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&key).ok()?;
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(body.as_bytes());
    Some(format!(
        "v1,{}",
        STANDARD.encode(mac.finalize().into_bytes())
    ))
}

/// When the retry after `attempts` attempts is due, or `None`: no more.
pub fn retry_at(attempts: u32, now: DateTime<Utc>, jitter: f64) -> Option<DateTime<Utc>> {
    let base = *RETRY_AFTER_SECS.get((attempts as usize).checked_sub(1)?)?;
    let wait = (base as f64 * (1.0 + jitter.clamp(-0.1, 0.1))) * 1_000.0;
    Some(now + chrono::Duration::milliseconds(wait as i64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_is_the_standard_webhooks_example() {
        // The example of the Standard Webhooks specification
        // (github.com/standard-webhooks/standard-webhooks, spec).
        let signed = signature(
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1_614_265_330,
            r#"{"test": 2432232314}"#,
        );
        assert_eq!(
            signed.as_deref(),
            Some("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        );
    }

    #[test]
    fn retries_follow_the_schedule_then_stop() {
        let now = Utc::now();
        assert_eq!(
            retry_at(1, now, 0.0),
            Some(now + chrono::Duration::seconds(5))
        );
        assert_eq!(
            retry_at(7, now, 0.0),
            Some(now + chrono::Duration::hours(6))
        );
        assert_eq!(retry_at(8, now, 0.0), None);
        let late = retry_at(1, now, 0.5).unwrap();
        assert_eq!(late, now + chrono::Duration::milliseconds(5_500));
    }

    #[test]
    fn ids_are_stable_per_occurrence() {
        let run = RunId::new();
        assert_eq!(
            delivery_id(run, "run.paused", 1),
            delivery_id(run, "run.paused", 1)
        );
        assert_ne!(
            delivery_id(run, "run.paused", 1),
            delivery_id(run, "run.paused", 2)
        );
        assert!(new_secret().unwrap().starts_with("whsec_"));
    }
}
