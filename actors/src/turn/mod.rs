//! One turn: a user message (or tool results) in, the model's answer out as
//! events appended to the thread's frame log, and both stored.
//!
//! [`run_turn`] reads top to bottom: load (`prepare`), store what the user
//! sent (flushed before any model call), announce (`meta`), resolve the
//! user's key, call the model (`model_step`; a call that failed before its
//! first token may be made again with a fallback model, `fallback_step`)
//! until the step after it says to commit, then commit the answer, its usage record and the keyed send's
//! outcome in one flushed write and end the stream (`commit`). A stop
//! reaches the key resolution and the model call at once; it drops the model
//! stream (closing a vendor connection). A model call that the vendor never
//! accepted (no 2xx answer) leaves no usage record.
//!
//! Tool calls: a model that calls client-side tools ends the turn with
//! `tool_call` events, `requires_action` and `done {requiresAction:true}`; the
//! client's next send carries `toolResults`, which join the context before the
//! model continues. A send without results while calls are pending answers
//! them with a "not executed" output so the vendor context stays valid.

mod budget;
mod cancel;
mod commit;
mod compact_step;
mod emitter;
mod fallback_step;
mod leases;
mod model_step;
mod model_stream;
mod outcome;
mod prepare;
mod public;
mod request;
mod tool_step;
mod writes;

use std::sync::Arc;

use chrono::{DateTime, Utc};
use tokio::sync::oneshot;

use crate::domain::{Agent, CompactionConfig, CredentialConfig, Metadata, Thread, UsageRecord};
use crate::events::Usage;
use crate::gating;
use crate::idempotency::IdempotencyRecord;
use crate::ids::{MessageId, OrgId, ThreadId};
use crate::ports::{Fence, ThreadStore};
use crate::provider::{
    ContextMessage, CredentialResolver, ModelProvider, ModelRoute, ToolCall, ToolDefinition,
};
use crate::timings::{PhaseClock, TurnTimings};
use crate::tools::{self, CallPlan, MAX_TOOL_STEPS, ToolExecutor, ToolScope};
use crate::trace::TraceRecorder;

pub use budget::{BudgetFuture, TurnBudget};
pub use cancel::CancelReason;
pub use emitter::Emitter;
pub use leases::{Leases, OrgTurns};
pub use model_step::compose_system_prompt;
pub use outcome::ModelOutcome;
pub use public::PublicTurn;
pub use request::{HostTurn, HostWork, RunTag, RunTurn, ToolResult, TurnRequest};
pub(crate) use writes::{failed_end, mark_failed};

/// What a turn needs from outside: the store, the models and the tools
/// Confer runs itself.
pub struct Engine {
    pub store: Arc<dyn ThreadStore>,
    pub provider: Arc<dyn ModelProvider>,
    pub resolver: Arc<dyn CredentialResolver>,
    pub tools: Arc<dyn ToolExecutor>,
    /// The traces of the turns running now (listed by the logs).
    pub traces: Arc<crate::trace::RunningTraces>,
    /// Prices of the models, for the traces' costs.
    pub prices: Arc<crate::prices::PriceTable>,
    /// Whether traces record inputs and outputs (`CONFER_TRACE_PAYLOADS`).
    pub trace_payloads: bool,
    /// Where a thread's writes get their lease when several nodes share
    /// the store (`scale.md` §3.4); `None` on one node.
    pub leases: Option<Arc<dyn Leases>>,
}

/// The output given to a pending tool call the user moved past.
pub const NOT_EXECUTED_NEW_MESSAGE: &str = "not executed: the user sent a new message";
/// The output given to a pending tool call the client sent no result for.
pub const NOT_EXECUTED_NO_RESULT: &str = "not executed: no result was given";

/// Everything a turn task is handed by its actor.
pub struct TurnInput {
    pub engine: Arc<Engine>,
    pub org: OrgId,
    pub thread: ThreadId,
    /// The turn's number in its thread.
    pub turn: u64,
    pub request: TurnRequest,
    pub emitter: Emitter,
    /// Resolves (with `Ok`) when the turn is stopped, saying why.
    pub cancel: oneshot::Receiver<CancelReason>,
    /// The cached context, or `None` to load it from the store.
    pub history: Option<Vec<ContextMessage>>,
    /// The lease its writes are made under (its actor's; boxed, as a turn
    /// task's size is counted, see `a_turn_task_stays_small`).
    pub fence: Option<Box<Fence>>,
}

/// A turn that ended early: the context to cache for the next turn, or
/// `None` when it must be reloaded from the store.
type Ended = Option<Vec<ContextMessage>>;

/// What the step after a model call decides.
enum AfterModelCall {
    /// Store the answer and end the turn.
    Commit(ModelOutcome),
    /// Run (or answer) the call's server-side tool calls, then `then`.
    Tools {
        outcome: ModelOutcome,
        plans: Vec<(ToolCall, CallPlan)>,
        then: AfterTools,
    },
}

/// What follows a tool step.
enum AfterTools {
    /// Another model call, with the results.
    CallAgain,
    /// End the turn asking the client for these calls' results.
    AskClient(Vec<ToolCall>),
}

/// A turn under way: what it loaded and what it has done so far.
struct Turn {
    engine: Arc<Engine>,
    org: OrgId,
    thread_id: ThreadId,
    number: u64,
    /// The lease its writes are made under.
    fence: Option<Box<Fence>>,
    request: TurnRequest,
    emitter: Emitter,
    cancel: oneshot::Receiver<CancelReason>,
    thread: Thread,
    agent: Agent,
    credentials: CredentialConfig,
    compaction: CompactionConfig,
    history: Vec<ContextMessage>,
    started_at: DateTime<Utc>,
    model: String,
    route: ModelRoute,
    user_message_id: Option<MessageId>,
    /// The keyed send's record, as written with the user message (boxed:
    /// most sends have none, and the turn task holds the turn inline).
    keyed: Option<Box<([u8; 32], IdempotencyRecord)>>,
    clock: PhaseClock,
    timings: TurnTimings,
    /// The client-side tools offered: the send's, or when it gives none,
    /// those the model was last offered in the thread.
    client_tools: Vec<ToolDefinition>,
    /// The server-side tools offered (none that a client-side tool shadows),
    /// what they shadowed and the profile that gated them.
    server_tools: Vec<ToolDefinition>,
    shadowed: Vec<String>,
    profile: Option<String>,
    /// Whom the tool calls are made for.
    scope: ToolScope,
    /// What the server-side tools tell the model (the current plan), read
    /// before each model call while the agent's plans are enabled.
    briefing: Option<String>,
    /// The attached skills' list, in the cached part of the system prompt
    /// after the preamble (`agent-extras.md` §1).
    skills_prompt: Option<String>,
    /// The model call under way, from 1.
    step: u32,
    /// The text of the steps before this one (what `done.content` holds).
    answer: String,
    /// Context entries of the steps before this one, stored with the answer.
    produced: Vec<ContextMessage>,
    /// Usage records stored earlier in the turn (a compaction's).
    billed: Vec<UsageRecord>,
    /// Usage records of the earlier model calls, stored with the answer.
    earlier_calls: Vec<UsageRecord>,
    /// Token counts of the earlier calls.
    spent: Usage,
    /// How many of the send's fallback models were tried; `None` when they
    /// do not apply (`fallback_step`).
    fallbacks_tried: Option<usize>,
    /// The turn's trace, recorded as its steps end (boxed: the turn task
    /// holds the turn inline, see `a_turn_task_stays_small`).
    trace: Box<TraceRecorder>,
    /// The kind of each server-side tool offered (`builtin`, `webhook`,
    /// `integration`, `mcp`), for the tool spans' `tool_kind`.
    tool_kinds: Vec<(String, &'static str)>,
}

/// A server's own turn ([`HostWork`]) started, or the input back. Not
/// inline in [`run_turn`]: the parameter would live across the await,
/// and the turn's task would hold it beside the model turn's state (the
/// input handed back is a new binding, which the task's layout overlaps).
// The input is moved either way: a large `Err` costs nothing here.
#[allow(clippy::result_large_err)]
fn host_turn(
    input: TurnInput,
) -> Result<std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>, TurnInput> {
    match input.request.host.clone() {
        Some(host) => Ok(host.0.run(input.emitter, input.thread, input.turn)),
        None => Err(input),
    }
}

/// Runs one turn to its `done`; returns the context to cache for the next
/// turn, or `None` when it must be reloaded from the store.
pub async fn run_turn(input: TurnInput) -> Option<Vec<ContextMessage>> {
    let input = match host_turn(input) {
        Ok(running) => {
            running.await;
            return None;
        }
        Err(input) => input,
    };
    let mut turn = match Box::pin(Turn::load(input)).await {
        Ok(turn) => turn,
        Err(ended) => return ended,
    };
    if let Err(ended) = Box::pin(turn.store_user_message()).await {
        return ended;
    }
    turn.announce();
    // Every step but the model call is boxed: a task holds its largest
    // step's future inline for its whole life, and the commit's alone is
    // 7 KB; boxed, a step's future lives only while it runs, and the task
    // streams with about 3 KB (see `a_turn_task_stays_small`).
    let mut key = match Box::pin(turn.resolve_key()).await {
        Ok(key) => key,
        Err(stopped) => {
            return Box::pin(turn.commit(ModelOutcome::stopped_before_the_call(stopped))).await;
        }
    };
    loop {
        // Read before the compaction estimate, which counts the prompt.
        if turn.scope.plans.enabled || turn.scope.knowledge.enabled || turn.scope.memory {
            turn.briefing = Box::pin(turn.engine.tools.briefing(&turn.scope)).await;
        }
        // Before the call and its compaction, which the budget counts.
        if let Some(budget) = turn.request.run.as_ref().map(|run| &run.budget)
            && let Some(limit) = budget.before_call(turn.step, &turn.earlier_calls).await
        {
            return Box::pin(turn.commit(ModelOutcome::paused_by_budget(limit))).await;
        }
        // Checked first: most calls need no boxed compaction step at all.
        let compacted = if turn.may_compact() {
            Box::pin(turn.compact_if_due(&key)).await
        } else {
            Ok(())
        };
        if let Err(stopped) = compacted {
            return Box::pin(turn.commit(ModelOutcome::stopped_before_the_call(stopped))).await;
        }
        let outcome = turn.call_model(&key).await;
        // Checked first: a boxed fallback step only when one may run.
        let outcome = match turn.fallback_due(outcome) {
            Ok(outcome) => outcome,
            Err(failed) => Box::pin(turn.fall_back(failed, &mut key)).await,
        };
        // The one place that picks what follows a model call.
        match turn.after_model_call(outcome) {
            AfterModelCall::Commit(outcome) => return Box::pin(turn.commit(outcome)).await,
            AfterModelCall::Tools {
                outcome,
                plans,
                then,
            } => {
                if let Err(stopped) = Box::pin(turn.tool_step(outcome, plans)).await {
                    return Box::pin(turn.commit(ModelOutcome::stopped_before_the_call(stopped)))
                        .await;
                }
                if let AfterTools::AskClient(calls) = then {
                    return Box::pin(turn.commit(ModelOutcome::asking_client(calls))).await;
                }
            }
        }
    }
}

impl Turn {
    /// After a model call: commit, or a tool step (`tools.md` §5). Calls of
    /// server-side tools run; calls of tools not offered are answered
    /// "tool not available"; at the step limit no call runs and one more
    /// call, without tool choice, ends the turn; client-side calls end the
    /// turn with `requires_action` once the server-side ones have run.
    fn after_model_call(&self, outcome: ModelOutcome) -> AfterModelCall {
        let ended = outcome.failure.is_some() || outcome.stopped_by.is_some();
        let cap = self.step_cap();
        if ended || outcome.tool_calls.is_empty() || self.step > cap {
            return AfterModelCall::Commit(outcome);
        }
        let is_client = |call: &ToolCall| self.client_tools.iter().any(|t| t.name == call.name);
        let is_server = |call: &ToolCall| self.server_tools.iter().any(|t| t.name == call.name);
        let is_builtin = |call: &ToolCall| call.name == tools::PROPOSE_PROFILE_SWITCH;
        let at_limit = self.step == cap;
        let mut plans = Vec::new();
        let mut client = Vec::new();
        for call in &outcome.tool_calls {
            let plan = if at_limit {
                CallPlan::Refuse(tools::LIMIT_REACHED)
            } else if is_client(call) {
                // The client reads `argumentsError` and answers as it sees fit.
                client.push(call.clone());
                continue;
            } else if is_server(call) && call.arguments_error.is_some() {
                CallPlan::Refuse(tools::INVALID_ARGUMENTS)
            } else if is_server(call) && is_builtin(call) {
                gating::propose(&self.agent, self.profile.as_deref(), call)
            } else if is_server(call) {
                CallPlan::Run
            } else {
                CallPlan::Refuse(tools::NOT_AVAILABLE)
            };
            plans.push((call.clone(), plan));
        }
        if plans.is_empty() {
            return AfterModelCall::Commit(outcome);
        }
        let then = if client.is_empty() {
            AfterTools::CallAgain
        } else {
            AfterTools::AskClient(client)
        };
        AfterModelCall::Tools {
            outcome,
            plans,
            then,
        }
    }

    /// Model calls the turn may make before its last is made without tools:
    /// what the send's budget says, else the send's own cap, else
    /// [`MAX_TOOL_STEPS`].
    pub(super) fn step_cap(&self) -> u32 {
        match &self.request.run {
            Some(run) => run.budget.step_cap(),
            None => self.request.max_tool_steps.unwrap_or(MAX_TOOL_STEPS),
        }
    }

    /// The thread's metadata overlaid with the send's, for the usage record.
    fn usage_metadata(&self) -> Metadata {
        let mut metadata = self.thread.metadata.clone();
        metadata.extend(self.request.metadata.clone());
        metadata
    }
}

/// Waits for `work` unless the turn is stopped first.
async fn until_cancelled<T>(
    cancel: &mut oneshot::Receiver<CancelReason>,
    work: impl std::future::Future<Output = T>,
) -> Result<T, CancelReason> {
    tokio::select! {
        biased;
        // A dropped sender is not a stop: the work goes on (and a receiver
        // that already resolved is never polled again).
        Ok(reason) = &mut *cancel, if !cancel.is_terminated() => Err(reason),
        done = work => Ok(done),
    }
}
