//! The credential resolver client: the signed HTTPS POST that asks an
//! organization's resolver for a user's own vendor key.
//!
//! Body `{userId, orgId, provider, model}`; headers `X-Service-Timestamp`
//! (Unix seconds), `X-Service-Nonce` (a UUID) and `X-Service-Signature`, the
//! hex HMAC-SHA256 with the agent's signing secret over
//! `{timestamp}.{nonce}.{raw body}`. The call waits at most the configured
//! timeout. A 200 with a string `apiKey` is used; anything else (null, another
//! status, a timeout, an unreachable URL, a body that does not parse) falls
//! back to the platform key. The answer is never logged.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use confer_actors::{CredentialResolver, KeyRequest, ResolvedKey, VendorKey};
use hmac::{Hmac, KeyInit, Mac};
use serde::Deserialize;
use serde_json::json;
use sha2::Sha256;

use crate::outbound::{Outbound, RESOLVER_BODY_CAP, read_capped};

/// Header names of the signed call.
pub const TIMESTAMP_HEADER: &str = "X-Service-Timestamp";
pub const NONCE_HEADER: &str = "X-Service-Nonce";
pub const SIGNATURE_HEADER: &str = "X-Service-Signature";

/// Hex HMAC-SHA256 of `{timestamp}.{nonce}.{body}` with `secret`.
pub fn signature(secret: &str, timestamp: &str, nonce: &str, body: &[u8]) -> String {
    // HMAC accepts keys of any length, so this cannot fail.
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret.as_bytes())
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    mac.update(timestamp.as_bytes());
    mac.update(b".");
    mac.update(nonce.as_bytes());
    mac.update(b".");
    mac.update(body);
    hex::encode(mac.finalize().into_bytes())
}

/// `request` carrying the JSON `body`, signed with `secret`: the headers
/// of Confer's signed calls (the resolver's, and org tools' webhooks).
pub fn signed(
    request: reqwest::RequestBuilder,
    secret: &str,
    body: String,
) -> reqwest::RequestBuilder {
    let timestamp = chrono::Utc::now().timestamp().to_string();
    let nonce = uuid::Uuid::new_v4().to_string();
    let signature = signature(secret, &timestamp, &nonce, body.as_bytes());
    request
        .header(TIMESTAMP_HEADER, timestamp)
        .header(NONCE_HEADER, nonce)
        .header(SIGNATURE_HEADER, signature)
        .header("content-type", "application/json")
        .body(body)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResolverAnswer {
    api_key: Option<String>,
    #[serde(default)]
    source: Option<String>,
}

/// Calls resolvers through the outbound policy.
pub struct HttpResolver {
    outbound: Outbound,
}

impl HttpResolver {
    /// A resolver client over `outbound`.
    pub fn new(outbound: Outbound) -> Self {
        Self { outbound }
    }

    async fn call(outbound: Outbound, request: KeyRequest) -> Option<ResolvedKey> {
        let body = json!({
            "userId": request.user_id,
            "orgId": request.org_id,
            "provider": request.provider,
            "model": request.model,
        })
        .to_string();
        let timeout = Duration::from_millis(u64::from(request.timeout_ms));
        let prepared = match outbound.request(reqwest::Method::POST, &request.resolver_url) {
            Ok(prepared) => prepared,
            Err(error) => {
                tracing::warn!(%error, "credential resolver not called; using the platform key");
                return None;
            }
        };
        let prepared = signed(prepared.timeout(timeout), &request.signing_secret, body);
        let response = match outbound.send(prepared).await {
            Ok(response) if response.status().is_success() => response,
            Ok(response) => {
                tracing::warn!(
                    status = response.status().as_u16(),
                    "credential resolver refused; using the platform key"
                );
                return None;
            }
            Err(error) => {
                tracing::warn!(%error, "credential resolver failed; using the platform key");
                return None;
            }
        };
        let bytes = match read_capped(response, RESOLVER_BODY_CAP).await {
            Ok(bytes) => bytes,
            Err(error) => {
                tracing::warn!(%error, "credential resolver answer unreadable; using the platform key");
                return None;
            }
        };
        let parsed = match serde_json::from_slice::<ResolverAnswer>(&bytes) {
            Ok(parsed) => parsed,
            Err(_) => {
                tracing::warn!("credential resolver answer did not parse; using the platform key");
                return None;
            }
        };
        let key = parsed.api_key.filter(|k| !k.is_empty())?;
        let source = parsed
            .source
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| "resolver".into());
        Some(ResolvedKey {
            key: VendorKey::new(key),
            source,
        })
    }
}

impl CredentialResolver for HttpResolver {
    fn resolve(
        &self,
        request: KeyRequest,
    ) -> Pin<Box<dyn Future<Output = Option<ResolvedKey>> + Send>> {
        Box::pin(Self::call(self.outbound.clone(), request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_is_hmac_over_timestamp_nonce_body() {
        // Reference value computed independently:
        // printf '1700000000.n-1.{"a":1}' | openssl dgst -sha256 -hmac secret
        let sig = signature("secret", "1700000000", "n-1", br#"{"a":1}"#);
        assert_eq!(
            sig,
            "27d8084c63cac059ba763044ec632b43be26c8f3126fdc463205793c59ad3dba"
        );
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(b"secret").unwrap();
        mac.update(br#"1700000000.n-1.{"a":1}"#);
        assert!(mac.verify_slice(&hex::decode(&sig).unwrap()).is_ok());
        assert_ne!(sig, signature("other", "1700000000", "n-1", br#"{"a":1}"#));
    }
}
