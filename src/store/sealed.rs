//! Sealed fields: the secrets a record keeps for later use are stored
//! encrypted ([`crate::secrets`]), opened only when read back. The
//! associated data names the org, record kind, record and field, so a sealed
//! value moved to another record does not open.

use confer_actors::{AgentId, CredentialConfig, OrgId, StoreError};

use super::codec::{decode, encode};
use super::keys::ConfigKind;
use super::{SledStore, engine};
use crate::secrets::{SecretBox, aad};

fn signing_secret_aad(org: OrgId, agent: AgentId) -> String {
    aad(
        &org.to_string(),
        "agent_credentials",
        &agent.to_string(),
        "signing_secret",
    )
}

fn sealing(error: crate::secrets::SecretError) -> StoreError {
    StoreError::Engine(error.to_string())
}

/// `config` with its signing secret sealed: how either store keeps it.
pub(crate) fn seal_credentials(
    secrets: &SecretBox,
    org: OrgId,
    agent: AgentId,
    mut config: CredentialConfig,
) -> Result<CredentialConfig, StoreError> {
    if let Some(secret) = &config.signing_secret
        && !SecretBox::is_sealed(secret)
    {
        let sealed = secrets
            .seal(secret, &signing_secret_aad(org, agent))
            .map_err(sealing)?;
        config.signing_secret = Some(sealed);
    }
    Ok(config)
}

/// `config` as either store keeps it, with its signing secret opened.
pub(crate) fn open_credentials(
    secrets: &SecretBox,
    org: OrgId,
    agent: AgentId,
    mut config: CredentialConfig,
) -> Result<CredentialConfig, StoreError> {
    use secrecy::ExposeSecret;
    if let Some(sealed) = &config.signing_secret
        && SecretBox::is_sealed(sealed)
    {
        let plain = secrets
            .open(sealed, &signing_secret_aad(org, agent))
            .map_err(sealing)?;
        config.signing_secret = Some(plain.expose_secret().to_owned());
    }
    Ok(config)
}

impl SledStore {
    /// `config` with its signing secret sealed.
    pub(crate) fn seal_credentials(
        &self,
        org: OrgId,
        agent: AgentId,
        config: CredentialConfig,
    ) -> Result<CredentialConfig, StoreError> {
        seal_credentials(&self.secrets, org, agent, config)
    }

    /// `config` as stored, with its signing secret opened.
    pub(crate) fn open_credentials(
        &self,
        org: OrgId,
        agent: AgentId,
        config: CredentialConfig,
    ) -> Result<CredentialConfig, StoreError> {
        open_credentials(&self.secrets, org, agent, config)
    }

    /// Seals the secrets an earlier version stored in plain text (once;
    /// later starts find nothing to do).
    pub(crate) fn seal_plain_secrets(&self) -> Result<usize, StoreError> {
        let _writing = self.gate.writing();
        let mut sealed = 0;
        for entry in self.agent_configs.iter() {
            let (key, value) = entry.map_err(engine)?;
            if key.len() != 33 || key[32] != ConfigKind::Credentials as u8 {
                continue;
            }
            let config: CredentialConfig = decode(&value)?;
            if config
                .signing_secret
                .as_deref()
                .is_none_or(SecretBox::is_sealed)
            {
                continue;
            }
            let id = |range: std::ops::Range<usize>| -> Result<[u8; 16], StoreError> {
                key[range]
                    .try_into()
                    .map_err(|_| StoreError::Codec("agent config key".into()))
            };
            let org = OrgId::from_bytes(id(0..16)?);
            let agent = AgentId::from_bytes(id(16..32)?);
            let record = encode(&self.seal_credentials(org, agent, config)?)?;
            // Compare-and-swap: a concurrent write (there is none at start) wins.
            let _ = self
                .agent_configs
                .compare_and_swap(&key, Some(value), Some(record))
                .map_err(engine)?;
            sealed += 1;
        }
        Ok(sealed)
    }
}
