//! Managed OAuth for MCP servers (`tools.md` §8): the client Confer
//! registered (or was given) at each server's authorization server, and the
//! tokens users (or, for `oauth: org` servers, the org) connected. Tokens
//! and client secrets are sealed; a token is bound to its org, server and
//! owner, so a sealed value moved to another record does not open.

use chrono::{DateTime, Utc};
use confer_actors::{McpServerId, OrgId, StoreError};
use secrecy::SecretString;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use sled::Transactional;

use super::codec::encode;
use super::mcps::read as read_server;
use super::{SledStore, engine, keys, tx_error};
use crate::secrets::{aad, redacted};

mod sealing;

pub(crate) use self::sealing::{
    opened_registration, opened_token, sealed_registration, sealed_token,
};

/// The authorization server of an MCP server, as discovered, and the
/// client Confer is there.
#[derive(Clone, Serialize, Deserialize)]
pub struct OAuthRegistration {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    pub revocation_endpoint: Option<String>,
    pub client_id: String,
    /// Sealed, when the server gave one.
    pub client_secret: Option<String>,
    /// The redirect URI the client was registered with.
    pub redirect_uri: String,
    pub scope: Option<String>,
}

impl std::fmt::Debug for OAuthRegistration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthRegistration")
            .field("issuer", &self.issuer)
            .field("authorization_endpoint", &self.authorization_endpoint)
            .field("token_endpoint", &self.token_endpoint)
            .field("revocation_endpoint", &self.revocation_endpoint)
            .field("client_id", &self.client_id)
            .field("client_secret", &redacted(&self.client_secret))
            .field("redirect_uri", &self.redirect_uri)
            .field("scope", &self.scope)
            .finish()
    }
}

impl std::fmt::Debug for TokenSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenSecrets")
            .field("access_token", &"<redacted>")
            .field("refresh_token", &redacted(&self.refresh_token))
            .finish()
    }
}

impl std::fmt::Debug for StoredToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredToken")
            .field("user", &self.user)
            .field("sealed", &"<sealed>")
            .field("expires_at", &self.expires_at)
            .field("scope", &self.scope)
            .field("updated_at", &self.updated_at)
            .field("epoch", &self.epoch)
            .finish()
    }
}

/// Whose token it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TokenOwner {
    /// An end user (a JWT `sub`, or a key's `senderId`).
    User(String),
    /// The org (`oauth: org` servers).
    Org,
}

impl TokenOwner {
    /// The owner's part of its token's key (a digest: no user id in keys).
    pub(crate) fn key_part(&self) -> [u8; 32] {
        match self {
            Self::User(user) => Sha256::digest(format!("user:{user}").as_bytes()).into(),
            Self::Org => Sha256::digest(b"org").into(),
        }
    }
}

/// The secret part of a token, sealed as one document.
#[derive(Clone, Serialize, Deserialize)]
pub struct TokenSecrets {
    pub access_token: String,
    pub refresh_token: Option<String>,
}

/// A connected token as stored.
#[derive(Clone, Serialize, Deserialize)]
pub struct StoredToken {
    /// Whose it is (`None`: the org's).
    pub user: Option<String>,
    /// [`TokenSecrets`] as JSON, sealed.
    pub sealed: String,
    pub expires_at: Option<DateTime<Utc>>,
    pub scope: Option<String>,
    pub updated_at: DateTime<Utc>,
    /// The server's `oauth_epoch` it was stored for.
    #[serde(default)]
    pub epoch: u32,
}

/// A token, opened.
#[derive(Clone, Debug)]
pub struct OpenToken {
    pub access_token: SecretString,
    pub refresh_token: Option<SecretString>,
    pub expires_at: Option<DateTime<Utc>>,
    pub scope: Option<String>,
}

fn registration_key(org: OrgId, server: McpServerId) -> [u8; 32] {
    keys::pair(org.as_bytes(), server.as_bytes())
}

fn token_key(org: OrgId, server: McpServerId, owner: &TokenOwner) -> Vec<u8> {
    let mut key = keys::pair(org.as_bytes(), server.as_bytes()).to_vec();
    key.extend_from_slice(&owner.key_part());
    key
}

fn token_aad(org: OrgId, server: McpServerId, owner: &TokenOwner) -> String {
    aad(
        &org.to_string(),
        "mcp_oauth_token",
        &format!("{server}:{}", hex::encode(owner.key_part())),
        "tokens",
    )
}

fn client_secret_aad(org: OrgId, server: McpServerId) -> String {
    aad(
        &org.to_string(),
        "mcp_oauth_registration",
        &server.to_string(),
        "client_secret",
    )
}

fn sealing(error: crate::secrets::SecretError) -> StoreError {
    StoreError::Engine(error.to_string())
}

impl StoredToken {
    /// Whose token it is.
    pub(crate) fn owner(&self) -> TokenOwner {
        self.user.clone().map_or(TokenOwner::Org, TokenOwner::User)
    }
}

impl SledStore {
    /// Stores the server's registration (`client_secret` in plain text,
    /// sealed here), made for the server as it was at `epoch`; `false`
    /// (nothing stored) when the server was deleted or changed since.
    pub fn put_oauth_registration(
        &self,
        org: OrgId,
        server: McpServerId,
        epoch: u32,
        registration: OAuthRegistration,
    ) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let registration = sealed_registration(&self.secrets, org, server, registration)?;
        let key = registration_key(org, server);
        let value = encode(&registration)?;
        self.if_epoch(org, server, epoch, &self.oauth_registrations, &key, value)
    }

    /// Inserts `value` at `key` of `tree` in one transaction with the check
    /// that the server still exists at `epoch`; whether it did.
    fn if_epoch(
        &self,
        org: OrgId,
        server: McpServerId,
        epoch: u32,
        tree: &sled::Tree,
        key: &[u8],
        value: Vec<u8>,
    ) -> Result<bool, StoreError> {
        let server_key = registration_key(org, server);
        (&self.mcps, tree)
            .transaction(|(mcps, tree)| {
                let current = read_server(mcps, &server_key)?;
                if current.is_none_or(|s| s.oauth_epoch != epoch) {
                    return Ok(false);
                }
                tree.insert(key, value.as_slice())?;
                Ok(true)
            })
            .map_err(tx_error)
    }

    /// The server's registration, its client secret opened.
    pub fn oauth_registration(
        &self,
        org: OrgId,
        server: McpServerId,
    ) -> Result<Option<OAuthRegistration>, StoreError> {
        Self::get::<OAuthRegistration>(&self.oauth_registrations, &registration_key(org, server))?
            .map(|stored| opened_registration(&self.secrets, org, server, stored))
            .transpose()
    }

    /// Stores `owner`'s token for the server (replacing any), made for the
    /// server as it was at `epoch`; `false` (nothing stored) when the
    /// server was deleted or changed since.
    pub fn put_oauth_token(
        &self,
        org: OrgId,
        server: McpServerId,
        epoch: u32,
        owner: &TokenOwner,
        token: &OpenToken,
    ) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let stored = sealed_token(&self.secrets, org, server, epoch, owner, token)?;
        let key = token_key(org, server, owner);
        self.if_epoch(
            org,
            server,
            epoch,
            &self.oauth_tokens,
            &key,
            encode(&stored)?,
        )
    }

    /// The keys of every token of the server.
    pub(super) fn oauth_token_keys(
        &self,
        org: OrgId,
        server: McpServerId,
    ) -> Result<Vec<sled::IVec>, StoreError> {
        self.oauth_tokens
            .scan_prefix(registration_key(org, server))
            .keys()
            .map(|key| key.map_err(engine))
            .collect()
    }

    /// Deletes the server's tokens stored for an epoch before `epoch`.
    pub(super) fn delete_oauth_tokens_before(
        &self,
        org: OrgId,
        server: McpServerId,
        epoch: u32,
    ) -> Result<(), StoreError> {
        for entry in self.oauth_tokens.scan_prefix(registration_key(org, server)) {
            let (key, value) = entry.map_err(engine)?;
            let stored: StoredToken = super::codec::decode(&value)?;
            if stored.epoch != epoch {
                self.oauth_tokens
                    .compare_and_swap(&key, Some(value), None::<&[u8]>)
                    .map_err(engine)?
                    .ok();
            }
        }
        Ok(())
    }

    /// `owner`'s token for the server, opened.
    pub fn oauth_token(
        &self,
        org: OrgId,
        server: McpServerId,
        owner: &TokenOwner,
    ) -> Result<Option<OpenToken>, StoreError> {
        let Some(stored) =
            Self::get::<StoredToken>(&self.oauth_tokens, &token_key(org, server, owner))?
        else {
            return Ok(None);
        };
        opened_token(&self.secrets, org, server, owner, stored).map(Some)
    }

    /// The owner whose token of the server was stored last, if any (a
    /// server whose tools only a connected user may list is listed with it).
    pub fn latest_oauth_owner(
        &self,
        org: OrgId,
        server: McpServerId,
    ) -> Result<Option<TokenOwner>, StoreError> {
        let mut latest: Option<StoredToken> = None;
        for entry in self.oauth_tokens.scan_prefix(registration_key(org, server)) {
            let stored: StoredToken = super::codec::decode(&entry.map_err(engine)?.1)?;
            if latest
                .as_ref()
                .is_none_or(|l| l.updated_at < stored.updated_at)
            {
                latest = Some(stored);
            }
        }
        Ok(latest.map(|t| t.owner()))
    }

    /// Deletes `owner`'s token; `false` when there was none.
    pub fn delete_oauth_token(
        &self,
        org: OrgId,
        server: McpServerId,
        owner: &TokenOwner,
    ) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        Ok(self
            .oauth_tokens
            .remove(token_key(org, server, owner))
            .map_err(engine)?
            .is_some())
    }

    /// Deletes every token and the registration of a server (it was
    /// deleted).
    pub fn delete_oauth_of(&self, org: OrgId, server: McpServerId) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        let prefix = registration_key(org, server);
        for key in self.oauth_tokens.scan_prefix(prefix).keys() {
            self.oauth_tokens
                .remove(key.map_err(engine)?)
                .map_err(engine)?;
        }
        self.oauth_registrations.remove(prefix).map_err(engine)?;
        Ok(())
    }
}
