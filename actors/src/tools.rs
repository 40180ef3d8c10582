//! Server-side tools (`tools.md` §5): the [`ToolExecutor`] port through
//! which a turn offers and runs the tools Confer calls itself (built-in plan
//! tools, org webhooks, database integrations, MCP servers) and reads the
//! briefing they add to the system prompt, and a step's execution: its calls
//! run concurrently, at most [`MAX_CONCURRENT_CALLS`] at once, each
//! announced and answered on the stream as it starts and ends.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use serde_json::{Value, json};

use crate::domain::{KnowledgeConfig, PlanConfig};
use crate::events::ThreadEvent;
use crate::ids::{AgentId, OrgId, ThreadId};
use crate::provider::{ToolCall, ToolDefinition};
use crate::trace::Stamp;
use crate::turn::Emitter;

/// At most this many calls of one step run at once.
pub const MAX_CONCURRENT_CALLS: usize = 8;

/// Model calls of one send that may offer tools; past it the calls of the
/// last one are answered with [`LIMIT_REACHED`] and one more call, without
/// tools to call, ends the turn.
pub const MAX_TOOL_STEPS: u32 = 10;

/// The error result of calls made at the step limit.
pub const LIMIT_REACHED: &str = "not executed: tool-call limit reached";

/// The built-in tool that proposes another tool profile (`tools.md` §4);
/// no org tool may take its name.
pub const PROPOSE_PROFILE_SWITCH: &str = "propose_profile_switch";

/// How the error result of a call that ran out of time begins.
pub const TIMEOUT_PREFIX: &str = "timeout after";
/// The deadline of a server-side call whose tool names none of its own.
pub const DEFAULT_TOOL_DEADLINE: std::time::Duration = std::time::Duration::from_secs(60);

/// The error result of a call of a tool the turn did not offer.
pub const NOT_AVAILABLE: &str = "tool not available";

/// The result of a server-side call whose arguments did not parse: it is
/// not run (vendor-options.md, "Stream correctness").
pub const INVALID_ARGUMENTS: &str = "arguments are not valid JSON";

/// Whom a tool call is made for.
#[derive(Clone, Debug)]
pub struct ToolScope {
    pub org: OrgId,
    pub agent: AgentId,
    pub thread: ThreadId,
    /// The runner whose run the turn is, if any.
    pub runner: Option<crate::RunnerId>,
    /// The user the call is made for (the resolver's rule).
    pub user_id: String,
    /// Whether `user_id` is a person whose OAuth tokens serve the call (a
    /// JWT user, or an `actAsUsers` key's `senderId`).
    pub end_user: bool,
    /// The agent's plan configuration: whether the plan tools are offered.
    pub plans: PlanConfig,
    /// The agent's knowledge configuration; `enabled` once the turn is
    /// prepared: knowledge takes part in it (injected, or its tool offered).
    pub knowledge: KnowledgeConfig,
    /// A public turn (a visitor's, a channel contact's): no injection, and
    /// knowledge only through a public `search_knowledge` (`publishing.md`
    /// rule 8).
    pub public: bool,
    /// A multiplayer thread's turn: shared memories only.
    pub multiplayer: bool,
    /// The agent keeps memories (its memory tools are offered before
    /// gating): recalled memories may go in the briefing.
    pub memory: bool,
    /// What the send says (what injected knowledge is searched for).
    pub message: Arc<str>,
    /// The knowledge sources this turn numbered, and its citations.
    pub sources: Arc<crate::citations::TurnSources>,
    /// What this turn's calls tell it besides their results.
    pub notes: Arc<CallNotes>,
    /// Where the turn sits among delegated turns, its trace, and where a
    /// delegate call streams its child's frames.
    pub place: Arc<crate::delegation::TurnPlace>,
    /// The send asked for `tool_output` events (`computer.md` §3).
    pub stream_tool_output: bool,
}

pub use crate::call_notes::{CallNotes, CallRequest};

/// What a tool call gave the model.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolOutput {
    /// The parsed JSON of a JSON answer, else the answer as a string.
    pub result: Value,
    pub is_error: bool,
}

impl ToolOutput {
    /// The error result `{"error": reason}`.
    pub fn error(reason: impl Into<String>) -> Self {
        Self {
            result: json!({ "error": reason.into() }),
            is_error: true,
        }
    }

    /// The call's outcome as metrics name it: `ok`, `error`, `timeout` or
    /// `not_available`.
    pub fn outcome(&self) -> &'static str {
        let reason = self.result.get("error").and_then(Value::as_str);
        match reason {
            _ if !self.is_error => "ok",
            Some(NOT_AVAILABLE) => "not_available",
            Some(reason) if reason.starts_with(TIMEOUT_PREFIX) => "timeout",
            _ => "error",
        }
    }

    /// The result as the text a tool entry of the context holds.
    pub fn as_text(&self) -> String {
        match &self.result {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        }
    }
}

/// The future of one tool call; dropping it cancels the call (a webhook's
/// connection is closed).
pub type ToolFuture = Pin<Box<dyn Future<Output = ToolOutput> + Send>>;

/// The server-side tools a turn may offer, by kind (`tools.md` §4 orders
/// the request's list by kind, then by name); gating picks from them.
#[derive(Clone, Debug, Default)]
pub struct ServerTools {
    /// Built-in tools (the plan tools when the agent's plans are enabled).
    pub builtin: Vec<ToolDefinition>,
    /// The org's webhook tools.
    pub org: Vec<ToolDefinition>,
    /// The query tools of the database integrations attached to the agent.
    pub integration: Vec<ToolDefinition>,
    /// The tools of the MCP servers attached to the agent.
    pub mcp: Vec<ToolDefinition>,
    /// The skills' part of the system prompt's cached prefix
    /// (`<available_skills>`), kept when `load_skill` is offered.
    pub skills_prompt: Option<String>,
}

/// The future of the tools offered to a turn.
pub type OfferedFuture = Pin<Box<dyn Future<Output = ServerTools> + Send>>;

/// The built-in knowledge tool's name (`knowledge.md` §4).
pub const SEARCH_KNOWLEDGE: &str = "search_knowledge";
/// The built-in memory tools' names (`knowledge.md` §5).
pub const REMEMBER: &str = "remember";
pub const RECALL: &str = "recall";
/// The built-in skill tool's name (`agent-extras.md` §1).
pub const LOAD_SKILL: &str = "load_skill";
/// The prefix of the computer tools (`computer.md` §3), gated as
/// `computer_*` and reserved from org tools.
pub const COMPUTER_PREFIX: &str = "computer_";

/// The future of a briefing: text for the system prompt, if any.
pub type BriefingFuture = Pin<Box<dyn Future<Output = Option<String>> + Send>>;

/// A turn that ended with an answer: status ok, no call left to the
/// client (what a memory collection reads, `knowledge.md` §5).
#[derive(Clone, Debug)]
pub struct AnsweredTurn {
    /// The turn's number in its thread.
    pub turn: u64,
    /// The model the turn answered with, as the send or the agent named it.
    pub model: String,
    /// The answer's text (every step's).
    pub answer: String,
}

/// The future of [`ToolExecutor::turn_answered`].
pub type AnsweredFuture = Pin<Box<dyn Future<Output = ()> + Send>>;

/// The tools Confer runs itself.
pub trait ToolExecutor: Send + Sync + 'static {
    /// The server-side tools a turn may offer, before gating.
    fn offered(&self, scope: &ToolScope) -> OfferedFuture;

    /// Runs one call of an offered tool.
    fn execute(&self, scope: &ToolScope, call: &ToolCall) -> ToolFuture;

    /// How long a call may run before the turn answers it with a timeout
    /// error (the tool's own timeout, with room for its connection, when
    /// it has one; else [`DEFAULT_TOOL_DEADLINE`]). No call holds a turn
    /// up past it, whatever the tool does.
    fn deadline(&self, _call: &ToolCall) -> std::time::Duration {
        DEFAULT_TOOL_DEADLINE
    }

    /// What the tools tell the model before each call (the current plan),
    /// read afresh for every model call of a turn; added after the
    /// preamble and overlays of the system prompt.
    fn briefing(&self, _scope: &ToolScope) -> BriefingFuture {
        Box::pin(async { None })
    }

    /// Told once a turn of an agent that keeps memories (`ToolScope::memory`,
    /// the only listener) answered, after its answer is durable and its
    /// stream ended; run on its own task (the turn never waits for it).
    fn turn_answered(&self, _scope: &ToolScope, _turn: AnsweredTurn) -> AnsweredFuture {
        Box::pin(async {})
    }
}

/// No server-side tools: every call is a client's.
pub struct NoServerTools;

impl ToolExecutor for NoServerTools {
    fn offered(&self, _: &ToolScope) -> OfferedFuture {
        Box::pin(async { ServerTools::default() })
    }

    fn execute(&self, _: &ToolScope, _: &ToolCall) -> ToolFuture {
        Box::pin(async { ToolOutput::error(NOT_AVAILABLE) })
    }
}

/// How one call of a step is answered.
pub enum CallPlan {
    /// Run it.
    Run,
    /// Do not run it; answer with this error result.
    Refuse(&'static str),
    /// A built-in tool's answer, made by the turn: `tool_executing`, the
    /// event it announces (if any), then its result.
    Answer {
        output: ToolOutput,
        announce: Option<ThreadEvent>,
    },
}

/// Runs a step's server-side calls: `tool_call` for each in the model's
/// order, then `tool_executing` as each starts and `tool_result` as each
/// ends (at most [`MAX_CONCURRENT_CALLS`] at once). Returns the outputs in
/// call order, each with when it ran. Dropping the future cancels the
/// calls still running.
pub async fn run_calls(
    executor: &dyn ToolExecutor,
    scope: &ToolScope,
    calls: &[(ToolCall, CallPlan)],
    emitter: &Emitter,
) -> Vec<RanCall> {
    for (call, _) in calls {
        emitter.emit(ThreadEvent::ToolCall {
            tool: Box::new(call.clone()),
        });
    }
    let mut outputs: Vec<Option<RanCall>> = vec![None; calls.len()];
    let mut waiting = calls.iter().enumerate();
    let mut running = FuturesUnordered::new();
    loop {
        while running.len() < MAX_CONCURRENT_CALLS {
            let Some((at, (call, plan))) = waiting.next() else {
                break;
            };
            let future: ToolFuture = match plan {
                CallPlan::Run => {
                    emitter.emit(ThreadEvent::ToolExecuting {
                        tool_name: call.name.clone(),
                        tool_call_id: call.id.clone(),
                    });
                    let deadline = executor.deadline(call);
                    let running = executor.execute(scope, call);
                    Box::pin(async move {
                        tokio::time::timeout(deadline, running)
                            .await
                            .unwrap_or_else(|_| {
                                ToolOutput::error(format!(
                                    "{TIMEOUT_PREFIX} {} ms",
                                    deadline.as_millis()
                                ))
                            })
                    })
                }
                CallPlan::Refuse(reason) => {
                    let output = ToolOutput::error(*reason);
                    Box::pin(async move { output })
                }
                CallPlan::Answer { output, announce } => {
                    emitter.emit(ThreadEvent::ToolExecuting {
                        tool_name: call.name.clone(),
                        tool_call_id: call.id.clone(),
                    });
                    if let Some(event) = announce {
                        emitter.emit(event.clone());
                    }
                    let output = output.clone();
                    Box::pin(async move { output })
                }
            };
            running.push(async move {
                let started = Stamp::now();
                let output = future.await;
                (at, output, started, std::time::Instant::now())
            });
        }
        let Some((at, output, started, ended)) = running.next().await else {
            break;
        };
        let call = &calls[at].0;
        for event in scope.notes.take_events(&call.id) {
            emitter.emit(event);
        }
        emitter.emit(ThreadEvent::ToolResult {
            tool_name: call.name.clone(),
            tool_call_id: call.id.clone(),
            result: Box::new(output.result.clone()),
            is_error: output.is_error.then_some(true),
        });
        outputs[at] = Some(RanCall {
            output,
            started,
            ended,
        });
    }
    outputs
        .into_iter()
        .map(|o| {
            o.unwrap_or_else(|| RanCall {
                output: ToolOutput::error(NOT_AVAILABLE),
                started: Stamp::now(),
                ended: std::time::Instant::now(),
            })
        })
        .collect()
}

/// A call of a step as it ran: its output and when.
#[derive(Clone, Debug)]
pub struct RanCall {
    pub output: ToolOutput,
    pub started: Stamp,
    pub ended: std::time::Instant,
}
