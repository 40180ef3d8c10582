//! `Idempotency-Key` (`streams.md`): the header's rules and the hashes the
//! thread's actor compares. A key is scoped to the thread and the caller
//! (API key, or the JWT's org and `sub`); the request hash covers the
//! canonical JSON of the body and the effective sender.

use actix_web::HttpRequest;
use confer_actors::{IdempotencyKey, OrgId, ThreadId};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::auth::Caller;
use crate::error::ApiError;

/// The header.
pub const HEADER: &str = "idempotency-key";
/// Longest key accepted.
pub const MAX_KEY_LEN: usize = 255;

/// The request's key: absent, or 1 to 255 visible ASCII characters (400
/// otherwise).
pub fn from_header(request: &HttpRequest) -> Result<Option<String>, ApiError> {
    let Some(value) = request.headers().get(HEADER) else {
        return Ok(None);
    };
    let bytes = value.as_bytes();
    if bytes.is_empty() || bytes.len() > MAX_KEY_LEN || !bytes.iter().all(u8::is_ascii_graphic) {
        return Err(ApiError::BadRequest(format!(
            "Idempotency-Key: 1 to {MAX_KEY_LEN} visible ASCII characters"
        )));
    }
    Ok(Some(String::from_utf8_lossy(bytes).into_owned()))
}

fn digest(parts: &[&[u8]]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    for part in parts {
        // Length-prefixed, so no two part lists hash alike.
        hasher.update((part.len() as u64).to_be_bytes());
        hasher.update(part);
    }
    hasher.finalize().into()
}

/// The key of a send on `thread` by `caller` (its org and user id), and
/// the hash of its request: `body` as canonical JSON (object keys sorted)
/// and the effective sender.
pub fn send_key(
    thread: ThreadId,
    caller: (OrgId, &str),
    key: &str,
    body: &impl Serialize,
    sender: Option<&str>,
) -> IdempotencyKey {
    // serde_json's maps are sorted by key, so this text is canonical.
    let canonical = serde_json::to_value(body)
        .map(|v| v.to_string())
        .unwrap_or_default();
    IdempotencyKey {
        key: digest(&[
            b"send",
            thread.as_bytes(),
            caller.0.as_bytes(),
            caller.1.as_bytes(),
            key.as_bytes(),
        ]),
        request: digest(&[canonical.as_bytes(), sender.unwrap_or("").as_bytes()]),
    }
}

/// The key of a thread creation by `caller` (scope: its org and itself)
/// and the hash of its request (`body` as canonical JSON).
pub fn creation_key(caller: &Caller, key: &str, body: &impl Serialize) -> IdempotencyKey {
    scoped_key(b"thread", caller, key, body)
}

/// The key of a creation of kind `scope` (`thread`, `marketplace-use`) by
/// `caller` (its org and itself) and the hash of its request.
pub fn scoped_key(
    scope: &[u8],
    caller: &Caller,
    key: &str,
    body: &impl Serialize,
) -> IdempotencyKey {
    let canonical = serde_json::to_value(body)
        .map(|v| v.to_string())
        .unwrap_or_default();
    IdempotencyKey {
        key: digest(&[
            scope,
            caller.org_id.as_bytes(),
            caller.user_id().as_bytes(),
            key.as_bytes(),
        ]),
        request: digest(&[canonical.as_bytes()]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_one_to_255_visible_ascii_characters() {
        let request = |value: &str| {
            actix_web::test::TestRequest::default()
                .insert_header((HEADER, value))
                .to_http_request()
        };
        assert_eq!(
            from_header(&request("k-1")).unwrap().as_deref(),
            Some("k-1")
        );
        assert!(from_header(&request(&"k".repeat(255))).unwrap().is_some());
        for bad in ["", "has space", &"k".repeat(256), "tab\there"] {
            assert!(from_header(&request(bad)).is_err(), "{bad:?}");
        }
        let none = actix_web::test::TestRequest::default().to_http_request();
        assert_eq!(from_header(&none).unwrap(), None);
    }
}
