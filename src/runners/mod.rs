//! Runners (`runners.md`): an agent, an instruction template, an input
//! JSON Schema, an output mode and a budget; a run answers one rendered
//! instruction with no client watching, on a hidden thread of its own so
//! that the turn engine, the frame log, traces and usage serve runs
//! unchanged. This module owns the records and their rules; the store's
//! layout is `crate::store::runners`, the HTTP side `crate::api::runners`,
//! and the worker that starts runs `worker`.

use chrono::{DateTime, Utc};
use confer_actors::{
    AgentId, Metadata, OrgId, RunId, RunnerId, Thread, ThreadId, ThreadKind, ThreadOrigin,
    ToolCall, ToolDefinition,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub mod budget;
pub mod button;
mod drive;
pub mod generate;
pub mod output;
pub mod retention;
pub mod rules;
pub mod schedule_trigger;
pub mod schema;
pub mod suggestions;
pub mod template;
pub mod triggers;
pub mod worker;

/// Runners an org may keep (`CONFER_MAX_RUNNERS_PER_ORG`'s default).
pub const DEFAULT_MAX_RUNNERS_PER_ORG: usize = 1_000;
/// The longest rendered instruction a run may send (bytes).
pub const MAX_RENDERED_BYTES: usize = 256 * 1024;
/// Restarts of a run before it fails `INTERRUPTED`.
pub const MAX_RESTARTS: u32 = 3;

/// How a run's answer becomes its output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum OutputMode {
    /// The turns' answers joined by a blank line.
    #[default]
    Text,
    /// The last answer parsed as JSON and validated by `output_schema`.
    Json,
}

/// Where a run's status changes are posted (`completion_webhook`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CompletionWebhook {
    pub url: String,
    /// `run.succeeded`, `run.failed`… (all when empty).
    #[serde(default)]
    pub events: Vec<String>,
}

/// A runner's spending limits, each positive or none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Budget {
    pub max_tokens: Option<u64>,
    pub max_cost_usd: Option<f64>,
    pub max_steps: Option<u32>,
    pub max_duration_secs: Option<u64>,
    pub daily_cost_usd: Option<f64>,
}

impl Default for Budget {
    /// A new runner's: 50 steps and an hour per run.
    fn default() -> Self {
        Self {
            max_tokens: None,
            max_cost_usd: None,
            max_steps: Some(50),
            max_duration_secs: Some(3_600),
            daily_cost_usd: None,
        }
    }
}

/// A runner.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Runner {
    #[schema(value_type = uuid::Uuid)]
    pub id: RunnerId,
    #[schema(value_type = uuid::Uuid)]
    pub org_id: OrgId,
    #[schema(value_type = uuid::Uuid)]
    pub agent_id: AgentId,
    pub name: String,
    pub description: Option<String>,
    /// A `minijinja` template over `{input, run, now}`.
    pub instructions: String,
    pub system_prompt_overlay: Option<String>,
    #[schema(value_type = Object)]
    pub input_schema: Value,
    pub output_mode: OutputMode,
    #[schema(value_type = Option<Object>)]
    pub output_schema: Option<Value>,
    /// The model; `None`: the agent's.
    pub model: Option<String>,
    pub tool_profile: Option<String>,
    #[schema(value_type = Vec<Object>)]
    pub client_tools: Vec<ToolDefinition>,
    pub max_concurrent_runs: u32,
    pub max_queued_runs: u32,
    pub resume_timeout_secs: u64,
    pub completion_webhook: Option<CompletionWebhook>,
    pub project_id: Option<String>,
    #[schema(value_type = BTreeMap<String, String>)]
    pub metadata: Metadata,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Bumped by every change.
    pub version: u64,
    /// Set by DELETE: gone from the API, its runs still readable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(ignore)]
    pub deleted_at: Option<DateTime<Utc>>,
}

/// A run's state (`runners.md` Runs §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Queued,
    Running,
    Succeeded,
    Failed,
    RequiresAction,
    Paused,
    Cancelled,
    Expired,
}

impl RunStatus {
    /// Whether nothing more happens to the run.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            Self::Succeeded | Self::Failed | Self::Cancelled | Self::Expired
        )
    }

    /// Whether the run waits for someone (a resume, a cancel or its expiry).
    pub fn is_waiting(self) -> bool {
        matches!(self, Self::RequiresAction | Self::Paused)
    }

    /// The name of the status in the API and the events.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Running => "running",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
            Self::RequiresAction => "requires_action",
            Self::Paused => "paused",
            Self::Cancelled => "cancelled",
            Self::Expired => "expired",
        }
    }
}

/// What started a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum TriggerKind {
    Manual,
    Schedule,
    Webhook,
    Button,
}

/// A run's trigger: its kind, the trigger's or task's id, and the slot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RunTrigger {
    pub kind: TriggerKind,
    pub id: Option<String>,
    pub scheduled_for: Option<DateTime<Utc>>,
}

/// A run's error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RunError {
    pub code: String,
    pub detail: String,
}

/// What a run spent: the sum of its usage records, and its running time.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RunUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: f64,
    pub steps: u32,
    pub duration_ms: u64,
}

/// A run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Run {
    #[schema(value_type = uuid::Uuid)]
    pub id: RunId,
    #[schema(value_type = uuid::Uuid)]
    pub org_id: OrgId,
    #[schema(value_type = uuid::Uuid)]
    pub runner_id: RunnerId,
    #[schema(value_type = uuid::Uuid)]
    pub agent_id: AgentId,
    #[schema(value_type = uuid::Uuid)]
    pub thread_id: ThreadId,
    pub status: RunStatus,
    pub status_reason: Option<String>,
    /// The budget field a `paused` run hit.
    pub limit: Option<String>,
    pub trigger: RunTrigger,
    #[schema(value_type = Value)]
    pub input: Value,
    #[schema(value_type = Option<Object>)]
    pub output: Option<Value>,
    pub error: Option<RunError>,
    #[schema(value_type = Vec<Object>)]
    pub pending_tool_calls: Vec<ToolCall>,
    pub usage: RunUsage,
    /// 1, then one more for each restart that requeued it.
    pub attempt: u32,
    #[schema(value_type = BTreeMap<String, String>)]
    pub metadata: Metadata,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub ended_at: Option<DateTime<Utc>>,
    /// When a waiting run expires.
    pub expires_at: Option<DateTime<Utc>>,
}

/// A run as stored: the run as answered, and the worker's progress (kept
/// across restarts, never answered). It derefs to the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    #[serde(flatten)]
    pub run: Run,
    #[serde(default)]
    pub progress: RunProgress,
    /// A button run's view token, SHA-256 hex (`runners.md` "Button
    /// page"): the public events route checks it; never answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view_token: Option<String>,
}

impl RunRecord {
    /// A new queued run of `runner` (not stored yet), on a new thread.
    pub fn queued(
        runner: &Runner,
        input: Value,
        metadata: Metadata,
        trigger: RunTrigger,
        created_by: String,
    ) -> Self {
        let run = Run {
            id: RunId::new(),
            org_id: runner.org_id,
            runner_id: runner.id,
            agent_id: runner.agent_id,
            thread_id: ThreadId::new(),
            status: RunStatus::Queued,
            status_reason: None,
            limit: None,
            trigger,
            input,
            output: None,
            error: None,
            pending_tool_calls: Vec::new(),
            usage: RunUsage::default(),
            attempt: 1,
            metadata,
            created_by,
            created_at: Utc::now(),
            started_at: None,
            ended_at: None,
            expires_at: None,
        };
        Self {
            run,
            progress: RunProgress::default(),
            view_token: None,
        }
    }
}

impl RunRecord {
    /// The run's hidden thread (`origin: "run"`), as made with the run.
    pub fn thread(&self, runner: &Runner) -> Thread {
        Thread {
            id: self.thread_id,
            org_id: self.org_id,
            agent_id: self.agent_id,
            title: Some(runner.name.clone()),
            kind: ThreadKind::Single,
            active_profile: None,
            metadata: self.metadata.clone(),
            system_prompt_overlay: None,
            resource_bindings: Vec::new(),
            created_by: self.created_by.clone(),
            publication_id: None,
            invite_generation: 0,
            origin: Some(ThreadOrigin::Run),
            delegation: None,
            project_id: None,
            created_at: self.created_at,
            updated_at: self.created_at,
        }
    }
}

impl std::ops::Deref for RunRecord {
    type Target = Run;
    fn deref(&self) -> &Run {
        &self.run
    }
}

impl std::ops::DerefMut for RunRecord {
    fn deref_mut(&mut self) -> &mut Run {
        &mut self.run
    }
}

/// What the worker has done of a run so far.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunProgress {
    /// The turns' answers so far (text mode joins them).
    pub answers: Vec<String>,
    /// Whether the rendered instruction was sent (a restart continues
    /// with an empty send instead).
    pub instructed: bool,
    /// Repair turns sent for invalid JSON.
    pub repairs: u32,
    /// The repair message the next turn sends.
    pub repair: Option<String>,
    /// The results a resume brought, sent by the next turn.
    pub tool_results: Vec<(String, String)>,
    /// The last turn of the thread whose outcome this record holds: an
    /// events stream holds a run turn's `done` until it is settled.
    pub settled_turn: u64,
    /// Running time before the current start (waiting excluded).
    pub ran_ms: u64,
    /// Set by a cancel of a running run: its turn stops, then it ends
    /// `cancelled`.
    pub cancel_requested: bool,
    /// When it was last queued (µs): its place in the queue's key.
    pub queued_us: u64,
    /// A run this one waits for (a schedule's `overlap: queue`): it
    /// starts once that one has ended.
    #[serde(default)]
    pub after: Option<RunId>,
    /// Completion webhook deliveries written for it (each delivery's id
    /// counts its occurrence).
    #[serde(default)]
    pub deliveries: u32,
}

impl Run {
    /// The `created_by` of a run's trigger that has no user of its own.
    pub fn trigger_user(kind: TriggerKind, id: &str) -> String {
        let kind = match kind {
            TriggerKind::Manual => "manual",
            TriggerKind::Schedule => "schedule",
            TriggerKind::Webhook => "webhook",
            TriggerKind::Button => "button",
        };
        format!("{kind}:{id}")
    }
}
