//! Agents and their per-agent configuration records (credential resolver,
//! compaction, plans); the signing secret is sealed on the way in and opened on
//! the way out (`sealed`).

use confer_actors::{
    Agent, AgentId, CompactionConfig, CredentialConfig, OrgId, PlanConfig, StoreError,
};

use super::codec::decode;
use super::keys::{self, ConfigKind};
use super::{SledStore, engine};

impl SledStore {
    /// Creates or replaces an agent.
    pub fn put_agent(&self, agent: &Agent) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        Self::put(
            &self.agents,
            &keys::pair(agent.org_id.as_bytes(), agent.id.as_bytes()),
            agent,
        )
    }

    /// The org's agents that are not deleted, oldest first.
    pub fn agents(&self, org: OrgId) -> Result<Vec<Agent>, StoreError> {
        let mut agents = Vec::new();
        for value in self.agents.scan_prefix(org.as_bytes()).values() {
            let agent: Agent = decode(&value.map_err(engine)?)?;
            if !agent.is_deleted() {
                agents.push(self.agent_in_live_project(agent)?);
            }
        }
        Ok(agents)
    }

    /// An agent's credential resolver configuration (the default when unset).
    /// The signing secret comes back opened.
    pub fn credentials(&self, org: OrgId, agent: AgentId) -> Result<CredentialConfig, StoreError> {
        let key = keys::agent_config(org, agent, ConfigKind::Credentials);
        let stored = Self::get(&self.agent_configs, &key)?.unwrap_or_default();
        self.open_credentials(org, agent, stored)
    }

    /// Replaces an agent's credential resolver configuration.
    pub fn put_credentials(
        &self,
        org: OrgId,
        agent: AgentId,
        config: &CredentialConfig,
    ) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        let key = keys::agent_config(org, agent, ConfigKind::Credentials);
        let sealed = self.seal_credentials(org, agent, config.clone())?;
        Self::put(&self.agent_configs, &key, &sealed)
    }

    /// An agent's compaction configuration (the default when unset).
    pub fn compaction(&self, org: OrgId, agent: AgentId) -> Result<CompactionConfig, StoreError> {
        let key = keys::agent_config(org, agent, ConfigKind::Compaction);
        Ok(Self::get(&self.agent_configs, &key)?.unwrap_or_default())
    }

    /// Replaces an agent's compaction configuration.
    pub fn put_compaction(
        &self,
        org: OrgId,
        agent: AgentId,
        config: &CompactionConfig,
    ) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        let key = keys::agent_config(org, agent, ConfigKind::Compaction);
        Self::put(&self.agent_configs, &key, config)
    }

    /// An agent's knowledge configuration (`knowledge.md` §4 defaults when
    /// unset).
    pub fn knowledge_config(
        &self,
        org: OrgId,
        agent: AgentId,
    ) -> Result<confer_actors::KnowledgeConfig, StoreError> {
        let key = keys::agent_config(org, agent, ConfigKind::Knowledge);
        Ok(Self::get(&self.agent_configs, &key)?.unwrap_or_default())
    }

    /// An agent's web configuration (`agent-extras.md` §4 defaults when
    /// unset), its search key sealed (`crate::web_tools::stored` writes it).
    pub fn web_config(
        &self,
        org: OrgId,
        agent: AgentId,
    ) -> Result<crate::web_tools::config::WebConfig, StoreError> {
        let key = keys::agent_config(org, agent, ConfigKind::Web);
        Ok(Self::get(&self.agent_configs, &key)?.unwrap_or_default())
    }

    /// An agent's memory configuration (`knowledge.md` §5 defaults when
    /// unset).
    pub fn memory_config(
        &self,
        org: OrgId,
        agent: AgentId,
    ) -> Result<crate::knowledge::memory::MemoryConfig, StoreError> {
        let key = keys::agent_config(org, agent, ConfigKind::Memory);
        Ok(Self::get(&self.agent_configs, &key)?.unwrap_or_default())
    }

    /// An agent's plan configuration (all off when unset).
    pub fn plan_config(&self, org: OrgId, agent: AgentId) -> Result<PlanConfig, StoreError> {
        let key = keys::agent_config(org, agent, ConfigKind::Plans);
        Ok(Self::get(&self.agent_configs, &key)?.unwrap_or_default())
    }

    /// An agent's suggestions, when any were set.
    pub fn agent_suggestions(
        &self,
        org: OrgId,
        agent: AgentId,
    ) -> Result<Option<crate::suggestions::agent::AgentSuggestions>, StoreError> {
        let key = keys::agent_config(org, agent, ConfigKind::Suggestions);
        Self::get(&self.agent_configs, &key)
    }

    /// Replaces an agent's suggestions.
    pub fn put_agent_suggestions(
        &self,
        suggestions: &crate::suggestions::agent::AgentSuggestions,
    ) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        let key = keys::agent_config(
            suggestions.org_id,
            suggestions.agent_id,
            ConfigKind::Suggestions,
        );
        Self::put(&self.agent_configs, &key, suggestions)
    }
}
