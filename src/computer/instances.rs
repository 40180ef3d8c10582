//! A computer instance (`computer.md` §2): one sandbox of a thread, its
//! state and why it stopped. The record is what the routes show; the
//! running sandbox itself is held by [`super::service`].

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, OrgId, ThreadId};
use serde::{Deserialize, Serialize};

pub use confer_actors::InstanceId;

use super::config::{NetworkMode, SizeClass};
use super::runtime::RuntimeKind;

/// Where an instance is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum InstanceState {
    Starting,
    Running,
    Stopping,
    Stopped,
    Failed,
}

impl InstanceState {
    /// Parses a `?state=` value.
    pub fn parse(text: &str) -> Option<Self> {
        serde_json::from_value(serde_json::Value::String(text.into())).ok()
    }
}

/// Why an instance stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    Idle,
    Limit,
    Disabled,
    AgentDeleted,
    Completed,
    Archived,
    Restart,
    Api,
    Error,
}

/// How an instance's limits are enforced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum LimitsMode {
    Cgroup,
    Rlimit,
    Vendor,
}

/// The stored (and shown) instance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Instance {
    pub id: InstanceId,
    pub org_id: OrgId,
    pub agent_id: AgentId,
    pub thread_id: Option<ThreadId>,
    /// Code sessions are not built yet: always null.
    pub code_session_id: Option<String>,
    pub runtime: RuntimeKind,
    pub state: InstanceState,
    pub size_class: SizeClass,
    pub limits_mode: LimitsMode,
    pub network_mode: NetworkMode,
    pub workspace_path: String,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub last_active_at: DateTime<Utc>,
    pub stopped_at: Option<DateTime<Utc>>,
    pub stop_reason: Option<StopReason>,
    pub error: Option<String>,
    pub command_count: u64,
    /// When a stopped instance's workspace and record go.
    pub delete_due_at: Option<DateTime<Utc>>,
}

impl Instance {
    /// A new instance of `thread`, `starting`.
    pub fn new(
        org: OrgId,
        agent: AgentId,
        thread: ThreadId,
        runtime: RuntimeKind,
        size: SizeClass,
        network: NetworkMode,
    ) -> Self {
        let now = Utc::now();
        Self {
            id: InstanceId::new(),
            org_id: org,
            agent_id: agent,
            thread_id: Some(thread),
            code_session_id: None,
            runtime,
            state: InstanceState::Starting,
            size_class: size,
            limits_mode: match runtime {
                RuntimeKind::Local => LimitsMode::Rlimit,
                _ => LimitsMode::Vendor,
            },
            network_mode: network,
            workspace_path: runtime.workspace().into(),
            created_at: now,
            started_at: None,
            last_active_at: now,
            stopped_at: None,
            stop_reason: None,
            error: None,
            command_count: 0,
            delete_due_at: None,
        }
    }

    /// Whether its sandbox may be running (a stop or a restart acts on it).
    pub fn is_live(&self) -> bool {
        matches!(
            self.state,
            InstanceState::Starting | InstanceState::Running | InstanceState::Stopping
        )
    }

    /// This instance stopped now for `reason`, its deletion due
    /// `retention` later.
    pub fn stopped(mut self, reason: StopReason, retention: chrono::Duration) -> Self {
        let now = Utc::now();
        self.state = InstanceState::Stopped;
        self.stop_reason = Some(reason);
        self.stopped_at = Some(now);
        self.delete_due_at = Some(now + retention);
        self
    }
}
