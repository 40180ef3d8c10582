//! A publication's identity secret (`cfi_…`, `publishing.md` "Visitors"),
//! sealed before either store keeps it and opened only to check a host's
//! `userToken`. The additional data names the publication, so a sealed
//! secret copied onto another publication does not open.

use confer_actors::StoreError;
use secrecy::{ExposeSecret, SecretString};

use super::Publication;
use crate::secrets::{SecretBox, aad};

fn identity_aad(publication: &Publication) -> String {
    aad(
        &publication.org_id.to_string(),
        "publication",
        &publication.id.to_string(),
        "identity_secret",
    )
}

/// Seals `plain` as `publication`'s identity secret.
pub fn seal(
    secrets: &SecretBox,
    publication: &Publication,
    plain: &str,
) -> Result<String, StoreError> {
    secrets
        .seal(plain, &identity_aad(publication))
        .map_err(|e| StoreError::Codec(format!("sealing an identity secret: {e}")))
}

/// `publication`'s identity secret, opened; `None` when it has none.
pub fn open(
    secrets: &SecretBox,
    publication: &Publication,
) -> Result<Option<SecretString>, StoreError> {
    let Some(sealed) = &publication.identity_secret else {
        return Ok(None);
    };
    let plain = secrets
        .open(sealed, &identity_aad(publication))
        .map_err(|e| StoreError::Codec(format!("opening an identity secret: {e}")))?;
    Ok(Some(SecretString::from(plain.expose_secret().to_owned())))
}
