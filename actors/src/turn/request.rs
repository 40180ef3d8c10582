//! What a turn is asked to do: the send as the HTTP layer (or a run's
//! worker) validated it, the client's tool results, and what a runner's
//! run adds (its ids and budget).

use std::sync::Arc;
use std::time::Instant;

use super::{PublicTurn, TurnBudget};
use crate::domain::Metadata;
use crate::idempotency::IdempotencyKey;
use crate::provider::ToolDefinition;

/// A client's result for a tool call.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolResult {
    pub tool_call_id: String,
    /// The output as text (JSON values arrive serialized).
    pub output: String,
}

/// The runner and run a turn belongs to (`runners.md`: its trace is a
/// `run-turn` naming both).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunTag {
    pub runner_id: crate::RunnerId,
    pub run_id: crate::RunId,
}

/// What a runner's run adds to its turns.
#[derive(Debug)]
pub struct RunTurn {
    pub tag: RunTag,
    /// The run's limits, asked before each model call.
    pub budget: Arc<dyn TurnBudget>,
}

/// Work the server does as a turn of its own, with no user message and no
/// model call (a code session's preparation, `computer.md` §6): it emits
/// the turn's frames itself, `meta` first and `done` last.
pub trait HostWork: Send + Sync {
    /// Runs the turn numbered `turn` of `thread`.
    fn run(
        &self,
        emitter: super::Emitter,
        thread: crate::ThreadId,
        turn: u64,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + 'static>>;
}

/// A [`HostWork`] behind one thin pointer (the turn's task holds the
/// request: `a_turn_task_stays_small`).
pub struct HostTurn(pub Box<dyn HostWork>);

impl std::fmt::Debug for HostTurn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HostTurn")
    }
}

/// A user's send, as the HTTP layer validated it.
#[derive(Clone, Debug, Default)]
pub struct TurnRequest {
    /// The user's text; empty adds no user message.
    pub content: String,
    pub sender_name: Option<String>,
    pub sender_id: Option<String>,
    /// Replaces the agent's default model for this turn.
    pub model_override: Option<String>,
    /// Appended to the system prompt for this turn only (never stored).
    pub system_prompt_overlay: Option<String>,
    /// Overlaid on the thread's metadata for the usage record.
    pub metadata: Metadata,
    /// Client-side tools offered to the model for this turn.
    pub tools: Vec<ToolDefinition>,
    /// The tool profile for this send (before the thread's and the agent's).
    pub tool_profile: Option<String>,
    /// Results answering the previous turn's tool calls.
    pub tool_results: Vec<ToolResult>,
    /// Whose key the credential resolver is asked for.
    pub user_id: String,
    /// Whether `user_id` is a person whose OAuth tokens the turn may use:
    /// a JWT user, or the `senderId` of a key with `actAsUsers`.
    pub end_user: bool,
    /// When the HTTP layer accepted the send; the turn's timings count from it.
    pub accepted: Option<Instant>,
    /// The send's `Idempotency-Key`, hashed.
    pub idempotency: Option<IdempotencyKey>,
    /// The send's vendor options (thinking, fallback models, caching).
    pub options: Arc<crate::vendor_options::VendorOptions>,
    /// The send's busy policy (`queue`, `reject`, `interrupt`), for its trace.
    pub if_busy: Option<&'static str>,
    /// The trace id of the send's W3C `traceparent`, which its trace continues.
    pub otel_trace_id: Option<String>,
    /// Set when a public chat's visitor sent it (`publishing.md` rule 8).
    pub public: Option<Arc<PublicTurn>>,
    /// Set on a runner's run's turn: its ids (the trace names them) and
    /// its budget. Behind one pointer: the turn's task holds the request
    /// (`a_turn_task_stays_small`).
    pub run: Option<Arc<RunTurn>>,
    /// An empty send that continues the context as it stands (a run
    /// resumed after its budget paused it, or started again after a
    /// restart); never set by a client's send.
    pub continuation: bool,
    /// Set on a delegated agent's turn: its place under the call that
    /// made it (`agent-extras.md` §3); it runs inside its root's org slot.
    pub delegation: Option<Arc<crate::delegation::DelegationLink>>,
    /// The send's `streamToolOutput`: a computer command's output is
    /// streamed as `tool_output` while it runs.
    pub stream_tool_output: bool,
    /// Set on a turn the server runs itself ([`HostWork`]).
    pub host: Option<Arc<HostTurn>>,
    /// Model calls the send may make before its last is made without
    /// tools, when not [`crate::tools::MAX_TOOL_STEPS`] (a code agent's
    /// `maxSteps`); a run's budget decides for its own turns.
    pub max_tool_steps: Option<u32>,
    /// Set on a code session's turn: the session's id, for the
    /// `session_status` frames it carries (`running` after `meta`, `idle`
    /// just before `done`).
    pub code_session: Option<Arc<str>>,
}
