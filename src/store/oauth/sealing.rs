//! Sealing and opening the OAuth state of MCP servers, as either store
//! keeps it: a registration's client secret, and a token's access and
//! refresh tokens sealed as one document bound to its org, server and
//! owner.

use chrono::Utc;
use confer_actors::{McpServerId, OrgId, StoreError};
use secrecy::{ExposeSecret, SecretString};

use super::{
    OAuthRegistration, OpenToken, StoredToken, TokenOwner, TokenSecrets, client_secret_aad,
    sealing, token_aad,
};
use crate::secrets::SecretBox;

/// `registration` with its client secret (in plain text) sealed, as
/// either store keeps it.
pub(crate) fn sealed_registration(
    key: &SecretBox,
    org: OrgId,
    server: McpServerId,
    mut registration: OAuthRegistration,
) -> Result<OAuthRegistration, StoreError> {
    registration.client_secret = registration
        .client_secret
        .map(|plain| key.seal(&plain, &client_secret_aad(org, server)))
        .transpose()
        .map_err(sealing)?;
    Ok(registration)
}

/// A stored registration with its client secret opened.
pub(crate) fn opened_registration(
    key: &SecretBox,
    org: OrgId,
    server: McpServerId,
    mut registration: OAuthRegistration,
) -> Result<OAuthRegistration, StoreError> {
    registration.client_secret = registration
        .client_secret
        .map(|sealed| {
            key.open(&sealed, &client_secret_aad(org, server))
                .map(|open| open.expose_secret().to_owned())
        })
        .transpose()
        .map_err(sealing)?;
    Ok(registration)
}

/// `owner`'s `token` sealed as either store keeps it, for the server as
/// it was at `epoch`.
pub(crate) fn sealed_token(
    key: &SecretBox,
    org: OrgId,
    server: McpServerId,
    epoch: u32,
    owner: &TokenOwner,
    token: &OpenToken,
) -> Result<StoredToken, StoreError> {
    let secrets = TokenSecrets {
        access_token: token.access_token.expose_secret().to_owned(),
        refresh_token: token
            .refresh_token
            .as_ref()
            .map(|t| t.expose_secret().to_owned()),
    };
    let json = serde_json::to_string(&secrets).map_err(|e| StoreError::Codec(e.to_string()))?;
    Ok(StoredToken {
        user: match owner {
            TokenOwner::User(user) => Some(user.clone()),
            TokenOwner::Org => None,
        },
        sealed: key
            .seal(&json, &token_aad(org, server, owner))
            .map_err(sealing)?,
        expires_at: token.expires_at,
        scope: token.scope.clone(),
        updated_at: Utc::now(),
        epoch,
    })
}

/// A stored token of `owner`, opened.
pub(crate) fn opened_token(
    key: &SecretBox,
    org: OrgId,
    server: McpServerId,
    owner: &TokenOwner,
    stored: StoredToken,
) -> Result<OpenToken, StoreError> {
    let json = key
        .open(&stored.sealed, &token_aad(org, server, owner))
        .map_err(sealing)?;
    let secrets: TokenSecrets =
        serde_json::from_str(json.expose_secret()).map_err(|e| StoreError::Codec(e.to_string()))?;
    Ok(OpenToken {
        access_token: SecretString::from(secrets.access_token),
        refresh_token: secrets.refresh_token.map(SecretString::from),
        expires_at: stored.expires_at,
        scope: stored.scope,
    })
}
