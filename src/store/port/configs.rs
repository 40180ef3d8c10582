//! The port of an agent's plain configurations (`keys::ConfigKind`): one
//! JSON record per agent and kind, its default when unset, changed by
//! compare-and-swap. The credentials keep methods of their own, which
//! seal and open their secret; the web configuration's search key is
//! sealed by its caller (`crate::web_tools::stored`) before it gets here.

use confer_actors::{AgentId, OrgId, StoreError, StoreFuture};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::SledRecords;
use crate::error::ApiError;
use crate::store::SledStore;
use crate::store::keys::{self, ConfigKind};
use crate::store::update::{Updated, swap};

/// The configurations kept as they are, with nothing sealed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlainConfig {
    Compaction,
    Plans,
    Multiplayer,
    Knowledge,
    Memory,
    Computer,
    /// Its search key sealed by `crate::web_tools::stored`.
    Web,
    /// An agent's delegates (`crate::tools::delegate::config`).
    Delegation,
    /// An agent's conversation starters (`crate::suggestions::agent`),
    /// `None` until set.
    Suggestions,
}

impl PlainConfig {
    /// Its kind in the store's keys.
    pub fn kind(self) -> ConfigKind {
        match self {
            Self::Compaction => ConfigKind::Compaction,
            Self::Plans => ConfigKind::Plans,
            Self::Multiplayer => ConfigKind::Multiplayer,
            Self::Knowledge => ConfigKind::Knowledge,
            Self::Memory => ConfigKind::Memory,
            Self::Computer => ConfigKind::Computer,
            Self::Web => ConfigKind::Web,
            Self::Delegation => ConfigKind::Delegation,
            Self::Suggestions => ConfigKind::Suggestions,
        }
    }
}

/// A change to a stored configuration as JSON (`Null` when unset); it may
/// be called again when a concurrent change wins first.
pub type ConfigSwap = Box<dyn FnMut(Value) -> Result<Value, ApiError> + Send>;

/// An agent's plain configurations.
pub trait AgentConfigs: Send + Sync + 'static {
    /// The stored configuration of `kind`, `None` when unset.
    fn config_json(
        &self,
        org: OrgId,
        agent: AgentId,
        kind: PlainConfig,
    ) -> StoreFuture<Option<Value>>;

    /// The stored configurations of `kinds`, in their order (`None` where
    /// unset): what a turn reads of its agent at once. One read on a store
    /// whose reads are statements; each its own elsewhere.
    fn configs_json(
        &self,
        org: OrgId,
        agent: AgentId,
        kinds: Vec<PlainConfig>,
    ) -> StoreFuture<Vec<Option<Value>>> {
        let reads: Vec<_> = kinds
            .into_iter()
            .map(|kind| self.config_json(org, agent, kind))
            .collect();
        Box::pin(futures_util::future::try_join_all(reads))
    }

    /// Every stored configuration of `kind` in `org` (an org-wide rule's
    /// input: the delegation graph).
    fn org_configs_json(&self, org: OrgId, kind: PlainConfig) -> StoreFuture<Vec<Value>>;

    /// Changes the configuration of `kind` atomically.
    fn update_config_json(
        &self,
        org: OrgId,
        agent: AgentId,
        kind: PlainConfig,
        change: ConfigSwap,
    ) -> StoreFuture<Updated<Value, ApiError>>;
}

/// The agent's configuration of `kind`, its default when unset.
pub async fn agent_config<T: DeserializeOwned + Default>(
    configs: &dyn AgentConfigs,
    org: OrgId,
    agent: AgentId,
    kind: PlainConfig,
) -> Result<T, StoreError> {
    config_of(configs.config_json(org, agent, kind).await?)
}

/// A configuration as [`AgentConfigs::config_json`] or
/// [`AgentConfigs::configs_json`] read it, its default when unset.
pub fn config_of<T: DeserializeOwned + Default>(stored: Option<Value>) -> Result<T, StoreError> {
    match stored {
        None | Some(Value::Null) => Ok(T::default()),
        Some(value) => typed(value),
    }
}

/// Changes the agent's configuration of `kind` (from its default when
/// unset) atomically; `Refused` stores nothing.
pub async fn update_agent_config<T>(
    configs: &dyn AgentConfigs,
    org: OrgId,
    agent: AgentId,
    kind: PlainConfig,
    mut change: impl FnMut(T) -> Result<T, ApiError> + Send + 'static,
) -> Result<Updated<T, ApiError>, StoreError>
where
    T: Serialize + DeserializeOwned + Default,
{
    let swap: ConfigSwap = Box::new(move |stored| {
        let current = match stored {
            Value::Null => T::default(),
            stored => typed(stored).map_err(|e| ApiError::Internal(e.to_string()))?,
        };
        let changed = change(current)?;
        serde_json::to_value(changed).map_err(|e| ApiError::Internal(e.to_string()))
    });
    Ok(
        match configs.update_config_json(org, agent, kind, swap).await? {
            Updated::Stored(value) => Updated::Stored(typed(value)?),
            Updated::Gone => Updated::Gone,
            Updated::Refused(refused) => Updated::Refused(refused),
        },
    )
}

fn typed<T: DeserializeOwned>(value: Value) -> Result<T, StoreError> {
    serde_json::from_value(value).map_err(|e| StoreError::Codec(e.to_string()))
}

impl AgentConfigs for SledRecords {
    fn config_json(
        &self,
        org: OrgId,
        agent: AgentId,
        kind: PlainConfig,
    ) -> StoreFuture<Option<Value>> {
        let key = keys::agent_config(org, agent, kind.kind());
        self.read(move |s| SledStore::get(&s.agent_configs, &key))
    }

    fn org_configs_json(&self, org: OrgId, kind: PlainConfig) -> StoreFuture<Vec<Value>> {
        self.read(move |s| {
            let mut all = Vec::new();
            for entry in s.agent_configs.scan_prefix(org.as_bytes()) {
                let (key, value) = entry.map_err(crate::store::engine)?;
                if key.len() == 33 && key[32] == kind.kind() as u8 {
                    all.push(crate::store::codec::decode(&value)?);
                }
            }
            Ok(all)
        })
    }

    fn update_config_json(
        &self,
        org: OrgId,
        agent: AgentId,
        kind: PlainConfig,
        change: ConfigSwap,
    ) -> StoreFuture<Updated<Value, ApiError>> {
        self.write(move |s| {
            let _writing = s.gate.writing();
            let key = keys::agent_config(org, agent, kind.kind());
            swap(
                &s.agent_configs,
                &key,
                |bytes| {
                    let stored = bytes.map(crate::store::codec::decode).transpose()?;
                    Ok(Some(stored.unwrap_or(Value::Null)))
                },
                change,
            )
        })
    }
}
