//! Sealing, keys and secret-free `Debug` output.

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
fn the_padded_key_mac_is_hmac_under_the_key_as_given() {
    use hmac::{KeyInit, Mac};
    let key = [9u8; 32];
    let mut ours = keyed_mac(&key);
    ours.update(b"message");
    let mut plain = hmac::Hmac::<sha2::Sha256>::new_from_slice(&key).unwrap();
    plain.update(b"message");
    assert_eq!(ours.finalize().into_bytes(), plain.finalize().into_bytes());
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
    assert!(SecretBox::load(Some(&SecretString::from("short")), None, None, dir.path()).is_err());
}
