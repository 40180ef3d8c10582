//! A runner's triggers (`runners.md` Objects): webhook triggers, whose
//! secret path token starts runs from another system's POST. The record,
//! its field rules and the inbound request's signature check live here;
//! the store's layout is `crate::store::runners::triggers`, the routes
//! `crate::api::runners::triggers` and `…::webhooks`.

use chrono::{DateTime, Utc};
use confer_actors::{OrgId, RunnerId, TriggerId};
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use super::TriggerKind;

/// Triggers a runner may have.
pub const MAX_TRIGGERS_PER_RUNNER: usize = 20;
/// The prefix of a webhook's path token.
pub const TOKEN_PREFIX: &str = "whk_";
/// The prefix of a webhook's signing secret.
pub const SECRET_PREFIX: &str = "cfs_";
/// The largest body a webhook may accept (the run input's cap).
pub const MAX_BODY_BYTES: u64 = 256 * 1024;
/// How far a signed request's timestamp may be from now (seconds).
pub const CLOCK_SKEW_SECS: i64 = 300;
/// How long a used nonce is kept (seconds).
pub const NONCE_KEEP_SECS: i64 = 600;
/// How long an idempotency key answers with its run (hours).
pub const KEY_KEEP_HOURS: i64 = 24;

/// A webhook trigger's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct WebhookSettings {
    /// The token's first characters, as logs show it.
    pub token_prefix: String,
    pub require_signature: bool,
    pub max_body_bytes: u64,
    pub rate_limit_per_min: u32,
    pub idempotency_header: String,
    pub rotation_grace_secs: u64,
}

/// A runner's trigger as answered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Trigger {
    #[schema(value_type = uuid::Uuid)]
    pub id: TriggerId,
    #[schema(value_type = uuid::Uuid)]
    pub runner_id: RunnerId,
    #[schema(value_type = uuid::Uuid)]
    pub org_id: OrgId,
    pub kind: TriggerKind,
    pub enabled: bool,
    #[serde(flatten)]
    pub webhook: WebhookSettings,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A trigger as stored: the trigger and what is never answered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TriggerRecord {
    #[serde(flatten)]
    pub trigger: Trigger,
    /// SHA-256 of the current token, hex.
    pub token_hash: String,
    /// The token a rotation replaced, hex hash, and when it stops
    /// working.
    pub retired_token: Option<(String, DateTime<Utc>)>,
    /// The signing secret, sealed (`cfs_…`).
    pub signing_secret: Option<String>,
}

/// What a token finds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TokenEntry {
    pub org_id: OrgId,
    pub runner_id: RunnerId,
    pub trigger_id: TriggerId,
    /// Set on a rotated-out token: it works until then.
    pub retires_at: Option<DateTime<Utc>>,
}

/// A webhook trigger's fields in a body (camelCase); `None`: absent.
#[derive(Clone, Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookDraft {
    pub require_signature: Option<bool>,
    pub max_body_bytes: Option<u64>,
    pub rate_limit_per_min: Option<u32>,
    pub idempotency_header: Option<String>,
    pub rotation_grace_secs: Option<u64>,
}

impl WebhookDraft {
    /// Whether any webhook field is given (a schedule trigger takes none).
    pub fn is_empty(&self) -> bool {
        self.require_signature.is_none()
            && self.max_body_bytes.is_none()
            && self.rate_limit_per_min.is_none()
            && self.idempotency_header.is_none()
            && self.rotation_grace_secs.is_none()
    }

    /// `self` applied over `base` (the defaults for a new trigger); the
    /// refusal is `field: rule`.
    pub fn apply(self, mut base: WebhookSettings) -> Result<WebhookSettings, String> {
        if let Some(v) = self.require_signature {
            base.require_signature = v;
        }
        if let Some(v) = self.max_body_bytes {
            if !(1..=MAX_BODY_BYTES).contains(&v) {
                return Err(format!("maxBodyBytes: 1 to {MAX_BODY_BYTES}"));
            }
            base.max_body_bytes = v;
        }
        if let Some(v) = self.rate_limit_per_min {
            if !(1..=100_000).contains(&v) {
                return Err("rateLimitPerMin: 1 to 100000".into());
            }
            base.rate_limit_per_min = v;
        }
        if let Some(v) = self.idempotency_header {
            let valid = !v.is_empty()
                && v.len() <= 64
                && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
            if !valid {
                return Err("idempotencyHeader: 1 to 64 letters, digits or '-'".into());
            }
            base.idempotency_header = v;
        }
        if let Some(v) = self.rotation_grace_secs {
            if v > 86_400 {
                return Err("rotationGraceSecs: 0 to 86400".into());
            }
            base.rotation_grace_secs = v;
        }
        Ok(base)
    }
}

impl WebhookSettings {
    /// A new webhook's defaults, for a token starting `token_prefix`.
    pub fn new(token_prefix: String) -> Self {
        Self {
            token_prefix,
            require_signature: false,
            max_body_bytes: MAX_BODY_BYTES,
            rate_limit_per_min: 60,
            idempotency_header: "Idempotency-Key".into(),
            rotation_grace_secs: 0,
        }
    }
}

/// The part of a token logs and answers show.
pub fn token_prefix(token: &str) -> String {
    token.chars().take(TOKEN_PREFIX.len() + 8).collect()
}

/// Why a signed request was refused: the header to name.
#[derive(Debug, PartialEq)]
pub enum SignatureRefused {
    Missing(&'static str),
    Stale,
    Mismatch,
}

/// Checks `{timestamp}.{nonce}.{body}` against the hex signature with
/// `secret` (tools.md §2's scheme), the timestamp within
/// [`CLOCK_SKEW_SECS`] of `now`. Constant time in the signature.
pub fn verify(
    secret: &str,
    timestamp: Option<&str>,
    nonce: Option<&str>,
    signature: Option<&str>,
    body: &[u8],
    now: DateTime<Utc>,
) -> Result<(), SignatureRefused> {
    use crate::resolver::{NONCE_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER};
    let timestamp = timestamp.ok_or(SignatureRefused::Missing(TIMESTAMP_HEADER))?;
    let nonce = nonce
        .filter(|n| !n.is_empty() && n.len() <= 128)
        .ok_or(SignatureRefused::Missing(NONCE_HEADER))?;
    let signature = signature.ok_or(SignatureRefused::Missing(SIGNATURE_HEADER))?;
    let seconds: i64 = timestamp.parse().map_err(|_| SignatureRefused::Stale)?;
    if (now.timestamp() - seconds).abs() > CLOCK_SKEW_SECS {
        return Err(SignatureRefused::Stale);
    }
    let presented = hex::decode(signature).map_err(|_| SignatureRefused::Mismatch)?;
    // HMAC accepts keys of any length.
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret.as_bytes())
        .map_err(|_| SignatureRefused::Mismatch)?;
    mac.update(timestamp.as_bytes());
    mac.update(b".");
    mac.update(nonce.as_bytes());
    mac.update(b".");
    mac.update(body);
    mac.verify_slice(&presented)
        .map_err(|_| SignatureRefused::Mismatch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolver::signature;

    #[test]
    fn a_signature_of_the_resolver_scheme_verifies_and_nothing_else() {
        let now = Utc::now();
        let ts = now.timestamp().to_string();
        let body = br#"{"a":1}"#;
        let good = signature("cfs_s", &ts, "n-1", body);
        assert_eq!(
            verify("cfs_s", Some(&ts), Some("n-1"), Some(&good), body, now),
            Ok(())
        );
        assert_eq!(
            verify("cfs_s", Some(&ts), Some("n-2"), Some(&good), body, now),
            Err(SignatureRefused::Mismatch)
        );
        assert_eq!(
            verify("cfs_other", Some(&ts), Some("n-1"), Some(&good), body, now),
            Err(SignatureRefused::Mismatch)
        );
        let old = (now.timestamp() - 301).to_string();
        let stale = signature("cfs_s", &old, "n-1", body);
        assert_eq!(
            verify("cfs_s", Some(&old), Some("n-1"), Some(&stale), body, now),
            Err(SignatureRefused::Stale)
        );
        assert_eq!(
            verify("cfs_s", Some(&ts), Some("n-1"), None, body, now),
            Err(SignatureRefused::Missing("X-Service-Signature"))
        );
    }

    #[test]
    fn drafts_keep_each_field_in_its_range() {
        let base = WebhookSettings::new("whk_1234abcd".into());
        let ok = WebhookDraft {
            max_body_bytes: Some(1024),
            rotation_grace_secs: Some(60),
            ..Default::default()
        }
        .apply(base.clone())
        .unwrap();
        assert_eq!((ok.max_body_bytes, ok.rotation_grace_secs), (1024, 60));
        for (draft, field) in [
            (
                WebhookDraft {
                    max_body_bytes: Some(MAX_BODY_BYTES + 1),
                    ..Default::default()
                },
                "maxBodyBytes",
            ),
            (
                WebhookDraft {
                    rate_limit_per_min: Some(0),
                    ..Default::default()
                },
                "rateLimitPerMin",
            ),
            (
                WebhookDraft {
                    idempotency_header: Some("bad header".into()),
                    ..Default::default()
                },
                "idempotencyHeader",
            ),
            (
                WebhookDraft {
                    rotation_grace_secs: Some(86_401),
                    ..Default::default()
                },
                "rotationGraceSecs",
            ),
        ] {
            assert!(draft.apply(base.clone()).unwrap_err().starts_with(field));
        }
    }
}
