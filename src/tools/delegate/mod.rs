//! The delegate tools (`agent-extras.md` §3): each of an agent's
//! delegates is a built-in tool `delegate__{slug}`, offered while the
//! turn's depth is under `CONFER_MAX_DELEGATION_DEPTH`; a call runs one
//! turn of the delegate on a new child thread (`child`) and answers its
//! text. `config` holds the stored delegates and the rules of their PUT.

mod child;
pub mod config;

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use confer_actors::tools::{NOT_AVAILABLE, ToolOutput, ToolScope};
use confer_actors::{Agent, AgentId, OrgId, Runtime, StoreError, ToolCall, ToolDefinition};
use serde_json::json;

use self::config::{Delegate, DelegationConfig};
use crate::store::Store;
use crate::store::port::{PlainConfig, agent_config};

/// The longest task a call may give, in characters.
pub const MAX_TASK_CHARS: usize = 32_000;

/// How deep delegation goes and how long a child may take.
#[derive(Clone, Copy, Debug)]
pub struct DelegationLimits {
    /// Delegate tools are offered while a turn's depth (root 0) is under it.
    pub max_depth: u32,
    /// A child turn running longer is stopped.
    pub timeout: Duration,
}

/// The delegate tools.
#[derive(Clone)]
pub struct DelegateTools {
    store: Store,
    /// Set once the runtime runs (it is made after the tools it runs).
    runtime: Arc<OnceLock<Runtime>>,
    limits: DelegationLimits,
}

/// An agent's delegates, when it has any (through the configs port).
pub async fn delegation_config(
    store: &Store,
    org: OrgId,
    agent: AgentId,
) -> Result<Option<DelegationConfig>, StoreError> {
    agent_config(store.configs(), org, agent, PlainConfig::Delegation).await
}

/// An agent's live delegates, each with its agent as it is now.
pub async fn live_delegates(
    store: &Store,
    org: OrgId,
    agent: AgentId,
) -> Result<Vec<(Delegate, Agent)>, StoreError> {
    live_of(store, org, delegation_config(store, org, agent).await?).await
}

/// The live delegates of `config` (an agent's delegation configuration,
/// read already), each with its agent as it is now.
pub async fn live_of(
    store: &Store,
    org: OrgId,
    config: Option<DelegationConfig>,
) -> Result<Vec<(Delegate, Agent)>, StoreError> {
    let Some(config) = config else {
        return Ok(Vec::new());
    };
    let mut live = Vec::with_capacity(config.delegates.len());
    for delegate in config.delegates {
        let agent = store.agents().agent(org, delegate.agent_id).await?;
        if let Some(agent) = agent.filter(|a| !a.is_deleted()) {
            live.push((delegate, agent));
        }
    }
    Ok(live)
}

/// A delegate's tool: its description, else the agent's.
pub fn definition(delegate: &Delegate, agent: &Agent) -> ToolDefinition {
    let description = delegate
        .description
        .clone()
        .filter(|d| !d.trim().is_empty())
        .or_else(|| Some(agent.description.clone()).filter(|d| !d.trim().is_empty()))
        .unwrap_or_else(|| format!("Delegate a task to the agent {}.", agent.name));
    ToolDefinition {
        name: delegate.tool_name.clone(),
        description: Some(description),
        parameters: json!({
            "type": "object",
            "properties": {
                "task": {
                    "type": "string", "minLength": 1, "maxLength": MAX_TASK_CHARS,
                    "description": "What the agent is to do, as a message to it"
                },
                "context": {"type": "string", "description": "What it needs to know besides"}
            },
            "required": ["task"]
        }),
    }
}

impl DelegateTools {
    /// The tools of `limits`; they answer "not available" until
    /// [`DelegateTools::runtime`] is set.
    pub fn new(store: Store, limits: DelegationLimits) -> Self {
        Self {
            store,
            runtime: Arc::default(),
            limits,
        }
    }

    /// The tools of `CONFER_MAX_DELEGATION_DEPTH` and
    /// `CONFER_DELEGATION_TIMEOUT_SECS`.
    pub fn from_settings(store: Store, settings: &crate::settings::Settings) -> Self {
        Self::new(
            store,
            DelegationLimits {
                max_depth: settings.max_delegation_depth,
                timeout: Duration::from_secs(settings.delegation_timeout_secs.max(1)),
            },
        )
    }

    /// Where the runtime goes once it is started.
    pub fn runtime(&self) -> Arc<OnceLock<Runtime>> {
        Arc::clone(&self.runtime)
    }

    /// The store the tools read.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Whether a turn at `scope`'s depth is offered delegate tools.
    pub fn offers(&self, scope: &ToolScope) -> bool {
        scope.place.depth() < self.limits.max_depth
    }

    /// A call's deadline: the child's timeout, then time to stop it and
    /// read its end.
    pub fn deadline(&self) -> Duration {
        self.limits.timeout + child::STOP_GRACE + Duration::from_secs(1)
    }

    /// Runs a delegate call.
    pub async fn execute(&self, scope: ToolScope, call: ToolCall) -> ToolOutput {
        if !self.offers(&scope) {
            return ToolOutput::error(NOT_AVAILABLE);
        }
        let Some(runtime) = self.runtime.get().cloned() else {
            return ToolOutput::error(NOT_AVAILABLE);
        };
        child::ChildCall {
            store: &self.store,
            runtime,
            timeout: self.limits.timeout,
            scope: &scope,
            call: &call,
        }
        .run()
        .await
    }
}
