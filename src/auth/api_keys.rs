//! API key secrets: generation (256 random bits), hashing (SHA-256: the secret
//! is high-entropy, so a fast hash is enough and keeps lookups O(1)), and the
//! start-up bootstrap of org `default` and its first key.

use chrono::Utc;
use confer_actors::{ApiKeyId, OrgId, StoreError};
use secrecy::{ExposeSecret, SecretString};
use sha2::{Digest, Sha256};

use crate::store::Store;
use crate::store::records::{ApiKey, KeyRole};

/// Prefix of every generated secret, so a leaked key is recognisable.
pub const SECRET_PREFIX: &str = "cfr_";
/// Characters of the secret kept as the listed `prefix`.
const SHOWN_PREFIX_LEN: usize = SECRET_PREFIX.len() + 8;
/// Name of the org the bootstrap ensures.
pub use crate::store::records::DEFAULT_ORG;

/// SHA-256 of a presented secret.
pub fn hash_secret(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

/// Prefix of resolver signing secrets.
pub const SIGNING_SECRET_PREFIX: &str = "cfs_";

/// A new random token: `prefix` then 256 random bits in hex.
pub fn random_token(prefix: &str) -> Result<SecretString, StoreError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| StoreError::Engine(format!("randomness: {e}")))?;
    Ok(SecretString::from(format!(
        "{prefix}{}",
        hex::encode(bytes)
    )))
}

/// A new API key secret.
pub fn generate_secret() -> Result<SecretString, StoreError> {
    random_token(SECRET_PREFIX)
}

/// A key record for `secret`, with its hash.
pub fn new_key_record(
    org_id: OrgId,
    name: String,
    role: KeyRole,
    platform_admin: bool,
    secret: &SecretString,
) -> (ApiKey, [u8; 32]) {
    let hash = hash_secret(secret.expose_secret());
    let prefix: String = secret
        .expose_secret()
        .chars()
        .take(SHOWN_PREFIX_LEN)
        .collect();
    let key = ApiKey {
        id: ApiKeyId::new(),
        org_id,
        name,
        prefix,
        role,
        platform_admin,
        secret_sha256: hex::encode(hash),
        created_at: Utc::now(),
        last_used_at: None,
        rate_limit_rps: None,
        act_as_users: false,
    };
    (key, hash)
}

/// Ensures the start-up credentials exist. With a bootstrap key: org `default`
/// and that key as its admin and platform admin. Without one, on an empty
/// store: org `default` and a new admin key, whose secret is returned (once)
/// for the caller to print.
pub async fn bootstrap(
    store: &Store,
    bootstrap_key: Option<SecretString>,
) -> Result<Option<SecretString>, StoreError> {
    let only_when_empty = bootstrap_key.is_none();
    let (secret, fresh) = match bootstrap_key {
        Some(secret) => (secret, false),
        None => (generate_secret()?, true),
    };
    let name = if fresh {
        "first admin key"
    } else {
        "bootstrap"
    };
    // The org is the store's default one, set by `bootstrap`.
    let (key, hash) = new_key_record(OrgId::new(), name.into(), KeyRole::Admin, true, &secret);
    let stored = store.orgs().bootstrap(key, hash, only_when_empty).await?;
    Ok((fresh && stored).then_some(secret))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_long_random_and_prefixed() {
        let a = generate_secret().unwrap();
        let b = generate_secret().unwrap();
        assert_ne!(a.expose_secret(), b.expose_secret());
        assert!(a.expose_secret().starts_with(SECRET_PREFIX));
        assert_eq!(a.expose_secret().len(), SECRET_PREFIX.len() + 64);
        let (record, hash) = new_key_record(OrgId::new(), "k".into(), KeyRole::Member, false, &a);
        assert_eq!(record.secret_sha256, hex::encode(hash));
        assert!(a.expose_secret().starts_with(&record.prefix));
        assert!(!record.secret_sha256.contains(&a.expose_secret()[4..]));
    }
}
