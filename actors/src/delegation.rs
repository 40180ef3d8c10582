//! Delegation's part in the engine (`agent-extras.md` §3): where a turn
//! sits in a tree of delegated turns ([`TurnPlace`], [`DelegationLink`]),
//! what a delegated thread and its usage records add, what a parent's
//! `done` sums up ([`DelegatedUsage`]) and the `tool_progress` event that
//! carries a child's frames to the root's stream. The tool itself (which
//! makes child threads and runs their turns) is the server's.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use serde::{Deserialize, Serialize};

use crate::events::{ThreadEvent, Usage};
use crate::ids::{AgentId, SpanId, ThreadId, TraceId};
use crate::turn::Emitter;

/// The names of delegate tools start with it (`delegate__{slug}`).
pub const TOOL_PREFIX: &str = "delegate__";

/// Delegation calls one root turn may make, all depths counted.
pub const MAX_CALLS_PER_ROOT: u32 = 20;

/// How a delegated turn hangs under the call that made it: set by the
/// delegate tool on the child turn's request.
#[derive(Debug)]
pub struct DelegationLink {
    pub parent_thread: ThreadId,
    pub parent_tool_call_id: String,
    pub root_thread: ThreadId,
    /// 1 for a root's child.
    pub depth: u32,
    /// The agents from the root's to this turn's own, in order (a cycle
    /// is an agent met twice).
    pub chain: Vec<AgentId>,
    /// The root turn's place: its count of calls is the tree's.
    pub root: Arc<TurnPlace>,
    /// The child's trace, made before the turn so the parent's tool span
    /// can name it.
    pub trace: TraceLink,
}

/// The trace of a delegated turn and where it hangs in its parent's.
#[derive(Clone, Debug)]
pub struct TraceLink {
    pub trace_id: TraceId,
    pub parent_trace_id: TraceId,
    pub parent_span_id: SpanId,
    /// The parent's OTLP trace id, which the child's spans share.
    pub otel_trace_id: String,
}

/// Where a running turn sits: its link to a parent (none at a root), its
/// trace, and the emitter a delegate call streams `tool_progress` to.
#[derive(Debug)]
pub struct TurnPlace {
    pub link: Option<Arc<DelegationLink>>,
    pub trace_id: TraceId,
    pub otel_trace_id: String,
    pub emitter: Emitter,
    /// Calls made under this turn when it is a root.
    calls: AtomicU32,
}

impl TurnPlace {
    /// The place of a turn with `link` (none at a root).
    pub fn new(
        link: Option<Arc<DelegationLink>>,
        trace_id: TraceId,
        otel_trace_id: String,
        emitter: Emitter,
    ) -> Self {
        Self {
            link,
            trace_id,
            otel_trace_id,
            emitter,
            calls: AtomicU32::new(0),
        }
    }

    /// 0 at a root.
    pub fn depth(&self) -> u32 {
        self.link.as_ref().map_or(0, |l| l.depth)
    }

    /// Counts a delegation call under the root turn; `false` once the
    /// root's [`MAX_CALLS_PER_ROOT`] are made.
    pub fn claim_call(&self) -> bool {
        let counter = match &self.link {
            Some(link) => &link.root.calls,
            None => &self.calls,
        };
        counter.fetch_add(1, Ordering::Relaxed) < MAX_CALLS_PER_ROOT
    }
}

/// What a delegate call tells its turn: the id its tool span takes and
/// the trace of the turn it ran.
#[derive(Clone, Copy, Debug)]
pub struct DelegateCall {
    pub span_id: SpanId,
    pub child_trace_id: TraceId,
}

/// What a delegated thread records of its place (`agent-extras.md` §3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadDelegation {
    pub parent_thread_id: ThreadId,
    pub parent_tool_call_id: String,
    pub root_thread_id: ThreadId,
    pub depth: u32,
}

/// What a delegated turn's usage records add.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageDelegation {
    pub parent_thread_id: ThreadId,
    pub root_thread_id: ThreadId,
    pub depth: u32,
}

impl From<&DelegationLink> for UsageDelegation {
    fn from(link: &DelegationLink) -> Self {
        Self {
            parent_thread_id: link.parent_thread,
            root_thread_id: link.root_thread,
            depth: link.depth,
        }
    }
}

/// All descendants' tokens and turns, as a parent's `done.usage.delegated`
/// sums them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DelegatedUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
    pub turns: u64,
}

impl DelegatedUsage {
    /// Adds a child turn's `done.usage`: its own tokens, one turn, and
    /// what it delegated in turn.
    pub fn add_turn(&mut self, usage: Option<&Usage>) {
        self.turns += 1;
        let Some(usage) = usage else {
            return;
        };
        self.input_tokens += usage.input_tokens;
        self.output_tokens += usage.output_tokens;
        self.cache_read_tokens += usage.cache_read_tokens;
        self.cache_write_tokens += usage.cache_write_tokens;
        if let Some(below) = &usage.delegated {
            self.input_tokens += below.input_tokens;
            self.output_tokens += below.output_tokens;
            self.cache_read_tokens += below.cache_read_tokens;
            self.cache_write_tokens += below.cache_write_tokens;
            self.turns += below.turns;
        }
    }
}

/// A child's frame as its parent streams it between the delegate call's
/// `tool_executing` and `tool_result`.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct ToolProgress {
    pub tool_name: String,
    pub tool_call_id: String,
    #[serde(rename = "childThreadId")]
    pub child_thread_id: ThreadId,
    /// The child's depth (1 for the root's child).
    pub depth: u32,
    /// The child's event name.
    pub event: &'static str,
    /// The child's event data.
    #[schema(value_type = Object)]
    pub data: serde_json::Value,
}

/// The child frames a parent forwards: tokens, tool calls and results,
/// errors, and the grandchildren's own progress.
pub fn forwards(event: &ThreadEvent) -> bool {
    matches!(
        event,
        ThreadEvent::Token { .. }
            | ThreadEvent::ToolCall { .. }
            | ThreadEvent::ToolExecuting { .. }
            | ThreadEvent::ToolResult { .. }
            | ThreadEvent::Error { .. }
            | ThreadEvent::ToolProgress(_)
    )
}
