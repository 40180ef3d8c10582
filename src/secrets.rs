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
    /// The old key as base64, for the key check of a shared database.
    old_text: Option<SecretString>,
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
            old_text: old_key.map(|k| SecretString::from(k.expose_secret().trim().to_owned())),
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

    /// A 32-byte key for one purpose, HKDF-SHA256 of the current key with
    /// `info` (the cluster key is `derive(b"confer-cluster")`, scale.md §1).
    pub fn derive(&self, info: &[u8]) -> [u8; 32] {
        derive(&key_bytes(&self.current_text), info)
    }

    /// The key checks a shared database keeps (scale.md §1): hex
    /// HMAC-SHA256 of the current key, and of the old key if one is set.
    /// A check names no key: it only tells two keys apart.
    pub fn key_checks(&self) -> (String, Option<String>) {
        (
            key_check(&key_bytes(&self.current_text)),
            self.old_text.as_ref().map(|old| key_check(&key_bytes(old))),
        )
    }

    /// Whether a stored value is sealed (an earlier version stored plain text).
    pub fn is_sealed(value: &str) -> bool {
        value.starts_with(SEALED_PREFIX)
    }
}

/// The bytes of a key `load` already decoded as 32 bytes (so this cannot
/// fail; a key that did not decode never made a `SecretBox`).
fn key_bytes(text: &SecretString) -> [u8; 32] {
    STANDARD
        .decode(text.expose_secret())
        .ok()
        .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
        .unwrap_or([0; 32])
}

fn derive(key: &[u8], info: &[u8]) -> [u8; 32] {
    use aws_lc_rs::hkdf::{HKDF_SHA256, Salt};
    let prk = Salt::new(HKDF_SHA256, &[]).extract(key);
    let mut out = [0u8; 32];
    // 32 bytes is far below HKDF-SHA256's 8,160-byte limit: cannot fail.
    let _ = prk
        .expand(&[info], HKDF_SHA256)
        .and_then(|okm| okm.fill(&mut out));
    out
}

/// HMAC-SHA256 under a 32-byte key. The key is zero-padded to SHA-256's
/// 64-byte block, which is what HMAC itself does with a shorter key, so
/// this is HMAC under the key as given, with no failure to handle.
pub fn keyed_mac(key: &[u8; 32]) -> hmac::Hmac<sha2::Sha256> {
    use hmac::KeyInit;
    let mut block = [0u8; 64];
    block[..32].copy_from_slice(key);
    hmac::Hmac::<sha2::Sha256>::new(&block.into())
}

fn key_check(key: &[u8; 32]) -> String {
    use hmac::Mac;
    let mut mac = keyed_mac(key);
    mac.update(b"confer-key-check");
    hex::encode(mac.finalize().into_bytes())
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
mod tests;
