//! Secrets at rest: the values Confer must use again (resolver signing
//! secrets now; tool secrets, MCP credentials, OAuth tokens later) are
//! stored sealed with AES-256-GCM.
//!
//! The key is 32 bytes, given in base64 by `CONFER_SECRET_KEY` or in a file
//! named by `CONFER_SECRET_KEY_FILE`; with neither, the first start creates
//! `{data_dir}/secret.key` (mode 0600, created exclusively and fsynced with
//! its directory before anything is sealed with it). Each value is sealed
//! with a fresh random 96-bit nonce and the associated data
//! `{org_id}/{record kind}/{record id}/{field}`, so a sealed value copied into
//! another record does not open. `CONFER_SECRET_KEY_OLD` is a previous key
//! still accepted for opening (rotation: values are sealed again with the
//! current key when next written). Losing the key loses those secrets, never
//! the messages.
//!
//! The cipher is aws-lc-rs's, already in the build as the TLS provider.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use aws_lc_rs::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use secrecy::{ExposeSecret, SecretString};

/// Prefix of a sealed value in the store: version, then base64(nonce ‖ ciphertext ‖ tag).
pub const SEALED_PREFIX: &str = "enc:v1:";
/// The key file created in the data directory when no key is configured.
pub const KEY_FILE: &str = "secret.key";

/// A sealing or opening failure. Never carries the value.
#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error("secret key: {0}")]
    Key(String),
    #[error(
        "a stored secret does not open with the configured key (was the secret key changed or lost?)"
    )]
    Unreadable,
    #[error("sealing failed")]
    Seal,
}

/// The associated data of one sealed field.
pub fn aad(org: &str, kind: &str, id: &str, field: &str) -> String {
    format!("{org}/{kind}/{id}/{field}")
}

/// The key(s) that seal and open stored secrets.
/// How a secret field shows in a `Debug`: whether it is set, never what
/// it is.
pub fn redacted<T>(secret: &Option<T>) -> &'static str {
    if secret.is_some() {
        "<redacted>"
    } else {
        "None"
    }
}

/// A `Debug` of a map of secrets (headers, environment variables) that
/// shows the names alone.
pub struct NamesOnly<'a>(pub &'a std::collections::BTreeMap<String, String>);

impl fmt::Debug for NamesOnly<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.0.keys()).finish()
    }
}

/// Sealed and secret-bearing records of this crate implement `Debug` by
/// hand with these helpers, so that no `{:?}` (a log line, a panic
/// message, an error's detail) prints a secret.
pub struct SecretBox {
    current: LessSafeKey,
    /// The current key as base64, for a backup made with the key.
    current_text: SecretString,
    old: Option<LessSafeKey>,
    /// Where the key came from, for the start-up log line (never the key).
    pub source: String,
}

impl fmt::Debug for SecretBox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecretBox")
            .field("source", &self.source)
            .field("has_old_key", &self.old.is_some())
            .finish_non_exhaustive()
    }
}

fn key_from_base64(text: &str, what: &str) -> Result<LessSafeKey, SecretError> {
    let bytes = STANDARD
        .decode(text.trim())
        .map_err(|_| SecretError::Key(format!("{what} is not base64")))?;
    if bytes.len() != 32 {
        return Err(SecretError::Key(format!(
            "{what} must be 32 bytes (base64 of 32 random bytes), got {}",
            bytes.len()
        )));
    }
    let key = UnboundKey::new(&AES_256_GCM, &bytes)
        .map_err(|_| SecretError::Key(format!("{what} is not an AES-256 key")))?;
    Ok(LessSafeKey::new(key))
}

impl SecretBox {
    /// The key of the configuration: `key` (base64), else the file `key_file`,
    /// else `{data_dir}/secret.key`, created when absent.
    pub fn load(
        key: Option<&SecretString>,
        key_file: Option<&Path>,
        old_key: Option<&SecretString>,
        data_dir: &Path,
    ) -> Result<Self, SecretError> {
        let (text, source) = match (key, key_file) {
            (Some(key), _) => (
                key.expose_secret().trim().to_owned(),
                "CONFER_SECRET_KEY".to_owned(),
            ),
            (None, Some(path)) => (read_key_file(path)?, path.display().to_string()),
            (None, None) => {
                let path = data_dir.join(KEY_FILE);
                let text = match read_key_file(&path) {
                    Ok(text) => text,
                    Err(_) if !path.exists() => create_key_file(&path)?,
                    Err(error) => return Err(error),
                };
                (text, path.display().to_string())
            }
        };
        let what = if key.is_some() {
            "CONFER_SECRET_KEY"
        } else {
            "the secret key file"
        };
        let current = key_from_base64(&text, what)?;
        let old = old_key
            .map(|k| key_from_base64(k.expose_secret(), "CONFER_SECRET_KEY_OLD"))
            .transpose()?;
        Ok(Self {
            current,
            current_text: SecretString::from(text.trim().to_owned()),
            old,
            source,
        })
    }

    /// The current key as base64 (what `secret.key` holds): only for a
    /// backup the operator asked to include it in.
    pub fn key_text(&self) -> &SecretString {
        &self.current_text
    }

    /// Seals `plain` for the field named by `aad`.
    pub fn seal(&self, plain: &str, aad: &str) -> Result<String, SecretError> {
        let mut nonce = [0u8; NONCE_LEN];
        getrandom::fill(&mut nonce).map_err(|_| SecretError::Seal)?;
        let mut sealed = plain.as_bytes().to_vec();
        self.current
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(aad.as_bytes()),
                &mut sealed,
            )
            .map_err(|_| SecretError::Seal)?;
        let mut out = nonce.to_vec();
        out.extend_from_slice(&sealed);
        Ok(format!("{SEALED_PREFIX}{}", STANDARD.encode(out)))
    }

    /// Opens a value sealed for `aad` (with the current key, else the old one).
    pub fn open(&self, sealed: &str, aad: &str) -> Result<SecretString, SecretError> {
        let body = sealed
            .strip_prefix(SEALED_PREFIX)
            .ok_or(SecretError::Unreadable)?;
        let bytes = STANDARD.decode(body).map_err(|_| SecretError::Unreadable)?;
        if bytes.len() < NONCE_LEN {
            return Err(SecretError::Unreadable);
        }
        let (nonce, cipher) = bytes.split_at(NONCE_LEN);
        for key in std::iter::once(&self.current).chain(self.old.as_ref()) {
            let nonce =
                Nonce::try_assume_unique_for_key(nonce).map_err(|_| SecretError::Unreadable)?;
            let mut buffer = cipher.to_vec();
            if let Ok(plain) = key.open_in_place(nonce, Aad::from(aad.as_bytes()), &mut buffer) {
                let text =
                    String::from_utf8(plain.to_vec()).map_err(|_| SecretError::Unreadable)?;
                return Ok(SecretString::from(text));
            }
        }
        Err(SecretError::Unreadable)
    }

    /// Whether a stored value is sealed (an earlier version stored plain text).
    pub fn is_sealed(value: &str) -> bool {
        value.starts_with(SEALED_PREFIX)
    }
}

fn read_key_file(path: &Path) -> Result<String, SecretError> {
    std::fs::read_to_string(path)
        .map_err(|e| SecretError::Key(format!("reading {}: {e}", path.display())))
}

/// Creates a new key file exclusively (0600), fsynced with its directory.
fn create_key_file(path: &PathBuf) -> Result<String, SecretError> {
    let io = |e: std::io::Error| SecretError::Key(format!("creating {}: {e}", path.display()));
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|_| SecretError::Key("no randomness".into()))?;
    let text = STANDARD.encode(bytes);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path).map_err(io)?;
    file.write_all(text.as_bytes()).map_err(io)?;
    file.sync_all().map_err(io)?;
    if let Some(dir) = path.parent() {
        std::fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(io)?;
    }
    tracing::warn!(
        path = %path.display(),
        "created the secret key file; back it up: the stored signing secrets cannot be read without it"
    );
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_with_secrets_show_none_in_debug() {
        use std::collections::BTreeMap;
        let secret = "s3cret-value-91";
        let map = BTreeMap::from([("X-Key".to_owned(), secret.to_owned())]);
        let shown = [
            format!(
                "{:?}",
                crate::store::mcps::McpCredentials {
                    headers: map.clone(),
                    env: map.clone(),
                }
            ),
            format!(
                "{:?}",
                crate::store::mcps::OAuthClient {
                    client_id: "id".into(),
                    client_secret: Some(secret.into()),
                    scope: None,
                }
            ),
            format!(
                "{:?}",
                crate::store::oauth::OAuthRegistration {
                    issuer: String::new(),
                    authorization_endpoint: String::new(),
                    token_endpoint: String::new(),
                    revocation_endpoint: None,
                    client_id: "id".into(),
                    client_secret: Some(secret.into()),
                    redirect_uri: String::new(),
                    scope: None,
                }
            ),
            format!(
                "{:?}",
                crate::store::oauth::TokenSecrets {
                    access_token: secret.into(),
                    refresh_token: Some(secret.into()),
                }
            ),
        ];
        for shown in shown {
            assert!(!shown.contains(secret), "{shown}");
            assert!(
                shown.contains("redacted") || shown.contains("X-Key"),
                "{shown}"
            );
        }
    }

    fn boxed(dir: &Path) -> SecretBox {
        SecretBox::load(None, None, None, dir).unwrap()
    }

    #[test]
    fn seals_opens_and_binds_to_the_field() {
        let dir = tempfile::tempdir().unwrap();
        let secrets = boxed(dir.path());
        let aad = aad("org", "credentials", "agent", "signing_secret");
        let sealed = secrets.seal("cfs_very_secret", &aad).unwrap();
        assert!(sealed.starts_with(SEALED_PREFIX));
        assert!(!sealed.contains("very_secret"));
        assert_ne!(
            sealed,
            secrets.seal("cfs_very_secret", &aad).unwrap(),
            "fresh nonce"
        );
        assert_eq!(
            secrets.open(&sealed, &aad).unwrap().expose_secret(),
            "cfs_very_secret"
        );
        let elsewhere = super::aad("org", "credentials", "other-agent", "signing_secret");
        assert!(secrets.open(&sealed, &elsewhere).is_err());
        let mut tampered = sealed.clone();
        tampered.pop();
        tampered.push('A');
        assert!(secrets.open(&tampered, &aad).is_err());
    }

    #[test]
    fn the_key_file_is_made_once_private_and_reused() {
        let dir = tempfile::tempdir().unwrap();
        let first = boxed(dir.path());
        let sealed = first.seal("v", "a").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(KEY_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let again = boxed(dir.path());
        assert_eq!(again.open(&sealed, "a").unwrap().expose_secret(), "v");
    }

    #[test]
    fn rotation_opens_with_the_old_key() {
        let dir = tempfile::tempdir().unwrap();
        let old_text = STANDARD.encode([7u8; 32]);
        let new_text = STANDARD.encode([9u8; 32]);
        let old = SecretString::from(old_text);
        let new = SecretString::from(new_text);
        let before = SecretBox::load(Some(&old), None, None, dir.path()).unwrap();
        let sealed = before.seal("v", "a").unwrap();
        let without = SecretBox::load(Some(&new), None, None, dir.path()).unwrap();
        assert!(without.open(&sealed, "a").is_err());
        let rotating = SecretBox::load(Some(&new), None, Some(&old), dir.path()).unwrap();
        assert_eq!(rotating.open(&sealed, "a").unwrap().expose_secret(), "v");
        assert!(
            SecretBox::load(Some(&SecretString::from("short")), None, None, dir.path()).is_err()
        );
    }
}
