//! One turn: a user message (or tool results) in, the model's answer out as
//! events, and both stored. Durability order: what the user sent is flushed
//! before the model is called; the answer (text and tool calls) and the usage
//! record are flushed before the events that report them. A stop drops the
//! model stream at once (closing a vendor connection), records usage, and ends
//! with `done {stopped:true}`.
//!
//! Tool calls: a model that calls client-side tools ends the turn with
//! `tool_call` events, `requires_action` and `done {requiresAction:true}`; the
//! client's next send carries `toolResults`, which join the context before the
//! model continues. A send without results while calls are pending answers
//! them with a "not executed" output so the vendor context stays valid.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use chrono::Utc;
use futures_util::StreamExt;
use serde_json::Value;
use tokio::sync::oneshot;

use crate::domain::{Message, Metadata, Role, UsageRecord};
use crate::events::{ThreadEvent, Usage};
use crate::frames::FrameLog;
use crate::idempotency::{self, IdempotencyKey, IdempotencyRecord, OutcomeKind, TurnOutcome};
use crate::ids::{MessageId, OrgId, ThreadId, UsageId};
use crate::ports::{StoreError, ThreadStore};
use crate::provider::{
    ContextMessage, ContextRole, CredentialResolver, KeyRequest, ModelError, ModelEvent,
    ModelProvider, ModelRequest, ReasoningBlock, ReasoningPiece, ToolCall, ToolDefinition,
    VendorKey, estimate_tokens, pending_tool_calls,
};
use crate::timings::{PhaseClock, TurnTimings, micros_between};

/// What a turn needs from outside: the store and the models.
pub struct Engine {
    pub store: Arc<dyn ThreadStore>,
    pub provider: Arc<dyn ModelProvider>,
    pub resolver: Arc<dyn CredentialResolver>,
}

/// The output given to a pending tool call the user moved past.
pub const NOT_EXECUTED_NEW_MESSAGE: &str = "not executed: the user sent a new message";
/// The output given to a pending tool call the client sent no result for.
pub const NOT_EXECUTED_NO_RESULT: &str = "not executed: no result was given";

/// A client's result for a tool call.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolResult {
    pub tool_call_id: String,
    /// The output as text (JSON values arrive serialized).
    pub output: String,
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
    /// Results answering the previous turn's tool calls.
    pub tool_results: Vec<ToolResult>,
    /// Whose key the credential resolver is asked for.
    pub user_id: String,
    /// When the HTTP layer accepted the send; the turn's timings count from it.
    pub accepted: Option<Instant>,
    /// The send's `Idempotency-Key`, hashed.
    pub idempotency: Option<IdempotencyKey>,
}

/// Where a turn's frames go: its thread's frame log, under its number.
#[derive(Clone)]
pub struct Emitter {
    log: Arc<FrameLog>,
    turn: u64,
}

impl Emitter {
    /// An emitter of `turn` into `log`.
    pub fn new(log: Arc<FrameLog>, turn: u64) -> Self {
        Self { log, turn }
    }

    /// Appends an event; never waits for a reader.
    pub fn emit(&self, event: ThreadEvent) {
        self.log.append(self.turn, event);
    }

    /// `error` then `done {ok:false}` with the content so far.
    pub fn fail(&self, code: &str, detail: impl Into<String>, content: String) {
        for event in ThreadEvent::failure(code, Some(detail.into()), content) {
            self.emit(event);
        }
    }
}

/// Runs a store call on the blocking pool.
async fn blocking<T, F>(store: &Arc<dyn ThreadStore>, f: F) -> Result<T, StoreError>
where
    T: Send + 'static,
    F: FnOnce(&dyn ThreadStore) -> Result<T, StoreError> + Send + 'static,
{
    let store = Arc::clone(store);
    crate::ports::run_blocking(move || f(store.as_ref())).await
}

/// The system prompt: preamble, thread overlay, message overlay, joined by a
/// blank line, empty parts left out.
pub fn compose_system_prompt(parts: &[Option<&str>]) -> String {
    parts
        .iter()
        .flatten()
        .map(|p| p.trim_end())
        .filter(|p| !p.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Why a running turn was cancelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CancelReason {
    /// `POST .../stop`, or a send with `ifBusy: interrupt`.
    Stop,
    /// The server is shutting down and the grace time is over.
    Shutdown,
}

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
}

/// A tool call being assembled from the stream's pieces.
#[derive(Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

impl PartialCall {
    fn finish(self) -> ToolCall {
        let arguments = if self.arguments.trim().is_empty() {
            Value::Object(serde_json::Map::new())
        } else {
            serde_json::from_str(&self.arguments).unwrap_or(Value::String(self.arguments))
        };
        ToolCall {
            id: self.id,
            name: self.name,
            arguments,
        }
    }
}

/// What a model call produced.
struct Outcome {
    content: String,
    tool_calls: Vec<ToolCall>,
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    failure: Option<ModelError>,
    /// Why the turn was stopped, if it was.
    stopped_by: Option<CancelReason>,
    /// When the first text arrived.
    first_text: Option<Instant>,
    /// The answer's reasoning blocks, in order.
    reasoning: Vec<ReasoningBlock>,
}

/// Adds a streamed piece to the reasoning block at its index.
fn add_reasoning(
    blocks: &mut BTreeMap<usize, ReasoningBlock>,
    index: usize,
    piece: ReasoningPiece,
) {
    let block = blocks.entry(index).or_insert_with(|| match &piece {
        ReasoningPiece::Redacted(_) => ReasoningBlock::RedactedThinking {
            data: String::new(),
        },
        _ => ReasoningBlock::Thinking {
            thinking: String::new(),
            signature: String::new(),
        },
    });
    match (block, piece) {
        (ReasoningBlock::Thinking { thinking, .. }, ReasoningPiece::Thinking(text)) => {
            thinking.push_str(&text);
        }
        (ReasoningBlock::Thinking { signature, .. }, ReasoningPiece::Signature(text)) => {
            signature.push_str(&text);
        }
        (ReasoningBlock::RedactedThinking { data }, ReasoningPiece::Redacted(text)) => {
            data.push_str(&text);
        }
        // A piece that does not fit its block's kind is a vendor error;
        // the block keeps what it had.
        _ => {}
    }
}

/// Reads the model stream to its end, relaying text as `token` events and
/// assembling tool calls; a stop drops the stream at once.
async fn consume(
    mut stream: crate::provider::ModelStream,
    emitter: &Emitter,
    cancel: &mut oneshot::Receiver<CancelReason>,
) -> Outcome {
    let mut outcome = Outcome {
        content: String::new(),
        tool_calls: Vec::new(),
        input_tokens: None,
        output_tokens: None,
        failure: None,
        stopped_by: None,
        first_text: None,
        reasoning: Vec::new(),
    };
    let mut reasoning: BTreeMap<usize, ReasoningBlock> = BTreeMap::new();
    let mut calls: BTreeMap<usize, PartialCall> = BTreeMap::new();
    let mut cancel_closed = false;
    loop {
        tokio::select! {
            biased;
            signal = &mut *cancel, if !cancel_closed => match signal {
                Ok(reason) => {
                    outcome.stopped_by = Some(reason);
                    break;
                }
                // The actor dropped the handle without a stop: keep going.
                Err(_) => cancel_closed = true,
            },
            event = stream.next() => match event {
                Some(ModelEvent::Text(delta)) => {
                    outcome.first_text.get_or_insert_with(Instant::now);
                    outcome.content.push_str(&delta);
                    emitter.emit(ThreadEvent::Token { delta });
                }
                Some(ModelEvent::ToolCallStart { index, id, name }) => {
                    let call = calls.entry(index).or_default();
                    call.id = id;
                    call.name = name;
                }
                Some(ModelEvent::Reasoning { index, piece }) => {
                    add_reasoning(&mut reasoning, index, piece);
                }
                Some(ModelEvent::ToolCallArguments { index, fragment }) => {
                    calls.entry(index).or_default().arguments.push_str(&fragment);
                }
                Some(ModelEvent::Usage { input_tokens, output_tokens }) => {
                    outcome.input_tokens = input_tokens.or(outcome.input_tokens);
                    outcome.output_tokens = output_tokens.or(outcome.output_tokens);
                }
                Some(ModelEvent::Finish(_)) => {
                    outcome.tool_calls = calls.into_values().map(PartialCall::finish).collect();
                    outcome.reasoning = std::mem::take(&mut reasoning).into_values().collect();
                    break;
                }
                Some(ModelEvent::Error(error)) => {
                    outcome.failure = Some(error);
                    break;
                }
                None => {
                    outcome.failure = Some(ModelError {
                        code: "PROVIDER_UNAVAILABLE",
                        detail: "the model's stream ended before the answer was complete".into(),
                    });
                    break;
                }
            },
        }
    }
    // Dropping the stream cancels the model call (closes a vendor connection).
    drop(stream);
    outcome
}

/// Context entries for what the user sent: results for every pending tool
/// call (a "not executed" output for those without one), then the message.
fn user_entries(
    history: &[ContextMessage],
    request: &TurnRequest,
) -> Result<Vec<ContextMessage>, String> {
    let pending = pending_tool_calls(history);
    if let Some(stray) = request
        .tool_results
        .iter()
        .find(|r| !pending.contains(&r.tool_call_id))
    {
        return Err(format!(
            "toolResults: `{}` answers no pending tool call",
            stray.tool_call_id
        ));
    }
    let mut entries: Vec<ContextMessage> = pending
        .into_iter()
        .map(|id| {
            let output = match request.tool_results.iter().find(|r| r.tool_call_id == id) {
                Some(result) => result.output.clone(),
                None if request.tool_results.is_empty() => NOT_EXECUTED_NEW_MESSAGE.to_owned(),
                None => NOT_EXECUTED_NO_RESULT.to_owned(),
            };
            ContextMessage::tool_result(id, output)
        })
        .collect();
    if !request.content.is_empty() {
        entries.push(ContextMessage::text(
            ContextRole::User,
            request.content.clone(),
        ));
    }
    Ok(entries)
}

/// A durable append: the listed message as stored, and where the time went.
struct DurableAppend {
    listed: Option<Message>,
    append_us: u64,
    flush_us: u64,
}

/// One durable write of a turn.
#[derive(Default)]
struct TurnWrite {
    /// The turn's number, noted with its first write.
    turn: Option<u64>,
    listed: Option<Message>,
    context: Vec<ContextMessage>,
    usage: Option<UsageRecord>,
    /// The keyed send's record (with its outcome, on the answer's write).
    keyed: Option<([u8; 32], IdempotencyRecord)>,
}

/// Writes `write` to the thread and waits until it is durable.
async fn append_durably(
    store: &Arc<dyn ThreadStore>,
    thread: ThreadId,
    write: TurnWrite,
) -> Result<DurableAppend, StoreError> {
    let mut clock = PhaseClock::since(Instant::now());
    let TurnWrite {
        turn,
        listed,
        context,
        usage,
        keyed,
    } = write;
    let stored = blocking(store, move |s| {
        if let Some(turn) = turn {
            s.note_turn(thread, turn)?;
        }
        let listed = s.append(thread, listed, context, keyed)?;
        if let Some(usage) = usage {
            s.record_usage(UsageRecord {
                message_id: listed.as_ref().map(|m| m.id),
                ..usage
            })?;
        }
        Ok(listed)
    })
    .await?;
    let append_us = clock.lap();
    store.flush().await?;
    Ok(DurableAppend {
        listed: stored,
        append_us,
        flush_us: clock.lap(),
    })
}

/// Runs one turn to its `done`; returns the context to cache for the next
/// turn, or `None` when it must be reloaded from the store.
pub async fn run_turn(input: TurnInput) -> Option<Vec<ContextMessage>> {
    let TurnInput {
        engine,
        org,
        thread: thread_id,
        turn,
        request,
        emitter,
        mut cancel,
        history,
    } = input;
    let started_at = Utc::now();
    let mut clock = PhaseClock::since(request.accepted.unwrap_or_else(Instant::now));
    let mut timings = TurnTimings {
        before_turn_us: clock.lap(),
        ..TurnTimings::default()
    };

    let loaded = blocking(&engine.store, move |s| {
        let Some(thread) = s.thread(org, thread_id)? else {
            return Ok(None);
        };
        let agent = s.agent(org, thread.agent_id)?;
        let credentials = s.credentials(org, thread.agent_id)?;
        let history = match history {
            Some(history) => history,
            None => s.context(thread_id)?,
        };
        Ok(Some((thread, agent, credentials, history)))
    })
    .await;
    let (thread, agent, credentials, mut history) = match loaded {
        Ok(Some((thread, Some(agent), credentials, history))) if !agent.is_deleted() => {
            (thread, agent, credentials, history)
        }
        Ok(Some(_)) => {
            emitter.fail("CONFLICT", "the thread's agent was deleted", String::new());
            return None;
        }
        Ok(None) => {
            emitter.fail("NOT_FOUND", "thread not found", String::new());
            return None;
        }
        Err(error) => {
            tracing::error!(%error, thread = %thread_id, "loading a turn failed");
            emitter.fail("INTERNAL", "internal error", String::new());
            return None;
        }
    };

    timings.load_us = clock.lap();

    // What the user sent is durable before the model is called.
    let entries = match user_entries(&history, &request) {
        Ok(entries) => entries,
        Err(detail) => {
            emitter.fail("VALIDATION_ERROR", detail, String::new());
            return Some(history);
        }
    };
    let listed = (!request.content.is_empty()).then(|| Message {
        id: MessageId::new(),
        thread_id,
        seq: 0,
        role: Role::User,
        content: request.content.clone(),
        sender_name: request.sender_name.clone(),
        sender_id: request.sender_id.clone(),
        created_at: started_at,
    });
    let user_message_id = listed.as_ref().map(|m| m.id);
    let model = request
        .model_override
        .clone()
        .unwrap_or_else(|| agent.default_model.clone());
    let keyed = request.idempotency.map(|key| {
        let record = IdempotencyRecord {
            request: idempotency::hex(&key.request),
            turn,
            created_at: Utc::now(),
            started_at,
            model: model.clone(),
            user_message_id,
            outcome: None,
        };
        (key.key, record)
    });
    let write = TurnWrite {
        turn: Some(turn),
        listed,
        context: entries.clone(),
        keyed: keyed.clone(),
        ..TurnWrite::default()
    };
    match append_durably(&engine.store, thread_id, write).await {
        Ok(durable) => {
            timings.user_append_us = durable.append_us;
            timings.user_flush_us = durable.flush_us;
            clock.lap(); // already counted in the two above
        }
        Err(error) => {
            tracing::error!(%error, thread = %thread_id, "storing a user message failed");
            emitter.fail("INTERNAL", "internal error", String::new());
            return None;
        }
    }
    history.extend(entries);

    let route = engine.provider.route(&model);
    emitter.emit(ThreadEvent::Meta {
        started_at,
        thread_id,
        user_message_id,
        model: model.clone(),
    });
    timings.meta_us = clock.lap();

    // The user's own key, when the agent has a resolver and a vendor is called.
    let mut api_key: Option<VendorKey> = None;
    let mut key_source = "platform".to_owned();
    if route.external
        && credentials.enabled
        && !credentials.resolver_url.is_empty()
        && let Some(signing_secret) = credentials.signing_secret.clone()
        && let Some(resolved) = engine
            .resolver
            .resolve(KeyRequest {
                user_id: request.user_id.clone(),
                org_id: org.to_string(),
                provider: route.provider.clone(),
                model: route.model.clone(),
                resolver_url: credentials.resolver_url.clone(),
                timeout_ms: credentials.timeout_ms,
                signing_secret,
            })
            .await
    {
        api_key = Some(resolved.key);
        key_source = resolved.source;
    }

    timings.key_us = clock.lap();

    let system = compose_system_prompt(&[
        Some(&agent.stable_preamble),
        thread.system_prompt_overlay.as_deref(),
        request.system_prompt_overlay.as_deref(),
    ]);
    let model_request = ModelRequest {
        route: route.clone(),
        system,
        messages: history.clone(),
        tools: request.tools.clone(),
        api_key,
    };
    let estimated_input = estimate_tokens(&model_request.system)
        + model_request
            .messages
            .iter()
            .map(|m| estimate_tokens(&m.content))
            .sum::<u64>();

    let called = Instant::now();
    let stream = engine.provider.stream(model_request);
    let mut outcome = consume(stream, &emitter, &mut cancel).await;
    timings.first_token_us = outcome
        .first_text
        .map_or(0, |first| micros_between(called, first));
    timings.stream_us = micros_between(called, Instant::now());

    let usage = Usage {
        input_tokens: outcome.input_tokens.unwrap_or(estimated_input),
        output_tokens: outcome
            .output_tokens
            .unwrap_or_else(|| estimate_tokens(&outcome.content)),
    };
    let mut metadata = thread.metadata.clone();
    metadata.extend(request.metadata.clone());
    let record = UsageRecord {
        id: UsageId::new(),
        org_id: org,
        agent_id: agent.id,
        thread_id,
        message_id: None,
        model: route.model.clone(),
        provider: route.provider.clone(),
        key_source,
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        metadata,
        stopped: outcome.stopped_by.is_some(),
        estimated: outcome.input_tokens.is_none() || outcome.output_tokens.is_none(),
        created_at: Utc::now(),
    };

    let answered = outcome.stopped_by.is_none() && outcome.failure.is_none();
    // An answer that only calls tools adds nothing to the listed history.
    let listed =
        (answered && (outcome.tool_calls.is_empty() || !outcome.content.is_empty())).then(|| {
            Message {
                id: MessageId::new(),
                thread_id,
                seq: 0,
                role: Role::Assistant,
                content: outcome.content.clone(),
                sender_name: None,
                sender_id: None,
                created_at: Utc::now(),
            }
        });
    let context: Vec<ContextMessage> = answered
        .then(|| ContextMessage {
            role: ContextRole::Assistant,
            content: outcome.content.clone(),
            tool_calls: outcome.tool_calls.clone(),
            tool_call_id: None,
            reasoning_from: (!outcome.reasoning.is_empty()).then(|| route.provider.clone()),
            reasoning: std::mem::take(&mut outcome.reasoning),
        })
        .into_iter()
        .collect();
    let requires_action = answered && !outcome.tool_calls.is_empty();
    // The keyed send's record gets the turn's outcome in the same write
    // (the store fills in the answer's position).
    let keyed = keyed.map(|(key, record)| {
        let (kind, error_code) = match (&outcome.failure, outcome.stopped_by) {
            (Some(failure), _) => (OutcomeKind::Error, Some(failure.code.to_owned())),
            (None, Some(CancelReason::Shutdown)) => {
                (OutcomeKind::Stopped, Some("SHUTTING_DOWN".to_owned()))
            }
            (None, Some(CancelReason::Stop)) => (OutcomeKind::Stopped, None),
            (None, None) if requires_action => (OutcomeKind::RequiresAction, None),
            (None, None) => (OutcomeKind::Ok, None),
        };
        let outcome = TurnOutcome {
            kind,
            message_id: None,
            answer_seq: None,
            usage: Some(usage),
            error_code,
        };
        (
            key,
            IdempotencyRecord {
                outcome: Some(outcome),
                ..record
            },
        )
    });
    let write = TurnWrite {
        listed,
        context: context.clone(),
        usage: Some(record),
        keyed,
        ..TurnWrite::default()
    };
    let stored = append_durably(&engine.store, thread_id, write).await;
    let message_id = match stored {
        Ok(durable) => {
            timings.answer_append_us = durable.append_us;
            timings.answer_flush_us = durable.flush_us;
            durable.listed.map(|m| m.id)
        }
        Err(error) => {
            tracing::error!(%error, thread = %thread_id, "storing an answer failed");
            emitter.fail("INTERNAL", "internal error", outcome.content);
            return None;
        }
    };
    history.extend(context);

    if let Some(failure) = outcome.failure {
        emitter.fail(failure.code, failure.detail, outcome.content);
        return Some(history);
    }
    if outcome.stopped_by == Some(CancelReason::Shutdown) {
        emitter.emit(ThreadEvent::Error {
            code: "SHUTTING_DOWN".into(),
            detail: Some("the server is shutting down; send again when it is back".into()),
        });
        emitter.emit(ThreadEvent::Done {
            ok: false,
            message_id,
            content: outcome.content,
            usage: Some(usage),
            stopped: Some(true),
            requires_action: None,
            gap: None,
        });
        return Some(history);
    }
    for call in &outcome.tool_calls {
        emitter.emit(ThreadEvent::ToolCall { tool: call.clone() });
    }
    if requires_action {
        emitter.emit(ThreadEvent::RequiresAction {
            tool_calls: outcome.tool_calls.clone(),
        });
    }
    timings.log(thread_id);
    emitter.emit(ThreadEvent::Done {
        ok: true,
        message_id,
        content: outcome.content,
        usage: Some(usage),
        stopped: outcome.stopped_by.is_some().then_some(true),
        requires_action: requires_action.then_some(true),
        gap: None,
    });
    Some(history)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_prompt_joins_present_parts() {
        assert_eq!(
            compose_system_prompt(&[Some("Be terse."), None, Some("Answer in French.")]),
            "Be terse.\n\nAnswer in French."
        );
        assert_eq!(compose_system_prompt(&[Some(""), Some("  "), None]), "");
        assert_eq!(compose_system_prompt(&[None, Some("x")]), "x");
    }
}
