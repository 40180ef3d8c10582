//! One turn: a user message in, the model's answer out as events, and both
//! stored. Durability order: the user message is flushed before the model is
//! called; the assistant message and the usage record are flushed before
//! `done`. A stop drops the model stream at once (closing a vendor
//! connection), records usage, and ends with `done {stopped:true}`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use chrono::Utc;
use futures_util::StreamExt;
use tokio::sync::{mpsc, oneshot};

use crate::domain::{Message, Metadata, Role, UsageRecord};
use crate::events::{StreamFrame, ThreadEvent, Usage};
use crate::ids::{MessageId, OrgId, ThreadId, UsageId};
use crate::ports::{StoreError, ThreadStore};
use crate::provider::{
    ContextMessage, ModelError, ModelEvent, ModelProvider, ModelRequest, estimate_tokens,
};

/// What a turn needs from outside: the store and the models.
pub struct Engine {
    pub store: Arc<dyn ThreadStore>,
    pub provider: Arc<dyn ModelProvider>,
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
}

/// The event sink of one stream, numbering frames 1, 2, 3…
#[derive(Clone)]
pub struct Emitter {
    sink: mpsc::Sender<StreamFrame>,
    next_id: Arc<AtomicU64>,
}

impl Emitter {
    /// An emitter over `sink`.
    pub fn new(sink: mpsc::Sender<StreamFrame>) -> Self {
        Self {
            sink,
            next_id: Arc::new(AtomicU64::new(1)),
        }
    }

    /// Sends an event. A client that went away does not stop the turn, so a
    /// closed sink is not an error.
    pub async fn emit(&self, event: ThreadEvent) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let _ = self.sink.send(StreamFrame { id, event }).await;
    }

    /// `error` then `done {ok:false}` with the content so far.
    pub async fn fail(&self, code: &str, detail: impl Into<String>, content: String) {
        self.emit(ThreadEvent::Error {
            code: code.to_owned(),
            detail: Some(detail.into()),
        })
        .await;
        self.emit(ThreadEvent::Done {
            ok: false,
            message_id: None,
            content,
            usage: None,
            stopped: None,
        })
        .await;
    }
}

/// Runs a store call on the blocking pool.
async fn blocking<T, F>(store: &Arc<dyn ThreadStore>, f: F) -> Result<T, StoreError>
where
    T: Send + 'static,
    F: FnOnce(&dyn ThreadStore) -> Result<T, StoreError> + Send + 'static,
{
    let store = Arc::clone(store);
    tokio::task::spawn_blocking(move || f(store.as_ref()))
        .await
        .map_err(|e| StoreError::Engine(format!("store task: {e}")))?
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

/// Everything a turn task is handed by its actor.
pub struct TurnInput {
    pub engine: Arc<Engine>,
    pub org: OrgId,
    pub thread: ThreadId,
    pub request: TurnRequest,
    pub emitter: Emitter,
    /// Resolves (with `Ok`) when the user stops the answer.
    pub cancel: oneshot::Receiver<()>,
    /// The cached context, or `None` to load it from the store.
    pub history: Option<Vec<ContextMessage>>,
}

/// Runs one turn to its `done`; returns the context to cache for the next
/// turn, or `None` when it must be reloaded from the store.
pub async fn run_turn(input: TurnInput) -> Option<Vec<ContextMessage>> {
    let TurnInput {
        engine,
        org,
        thread: thread_id,
        request,
        emitter,
        mut cancel,
        history,
    } = input;
    let started_at = Utc::now();

    let loaded = blocking(&engine.store, move |s| {
        let Some(thread) = s.thread(org, thread_id)? else {
            return Ok(None);
        };
        let agent = s.agent(org, thread.agent_id)?;
        let history = match history {
            Some(history) => history,
            None => s
                .messages(thread_id, 0, usize::MAX)?
                .0
                .into_iter()
                .map(|m| ContextMessage {
                    role: m.role,
                    content: m.content,
                })
                .collect(),
        };
        Ok(Some((thread, agent, history)))
    })
    .await;
    let (thread, agent, mut history) = match loaded {
        Ok(Some((thread, Some(agent), history))) if !agent.is_deleted() => (thread, agent, history),
        Ok(Some(_)) => {
            emitter
                .fail("CONFLICT", "the thread's agent was deleted", String::new())
                .await;
            return None;
        }
        Ok(None) => {
            emitter
                .fail("NOT_FOUND", "thread not found", String::new())
                .await;
            return None;
        }
        Err(error) => {
            tracing::error!(%error, thread = %thread_id, "loading a turn failed");
            emitter
                .fail("INTERNAL", "internal error", String::new())
                .await;
            return None;
        }
    };

    // The user message is durable before the model is called.
    let mut user_message_id = None;
    if !request.content.is_empty() {
        let message = Message {
            id: MessageId::new(),
            thread_id,
            seq: 0,
            role: Role::User,
            content: request.content.clone(),
            sender_name: request.sender_name.clone(),
            sender_id: request.sender_id.clone(),
            created_at: started_at,
        };
        let stored = blocking(&engine.store, move |s| s.append_message(message)).await;
        let flushed = match stored {
            Ok(message) => engine.store.flush().await.map(|()| message),
            Err(error) => Err(error),
        };
        match flushed {
            Ok(message) => {
                user_message_id = Some(message.id);
                history.push(ContextMessage {
                    role: Role::User,
                    content: message.content,
                });
            }
            Err(error) => {
                tracing::error!(%error, thread = %thread_id, "storing a user message failed");
                emitter
                    .fail("INTERNAL", "internal error", String::new())
                    .await;
                return None;
            }
        }
    }

    let model = request
        .model_override
        .clone()
        .unwrap_or_else(|| agent.default_model.clone());
    let route = engine.provider.route(&model);
    emitter
        .emit(ThreadEvent::Meta {
            started_at,
            thread_id,
            user_message_id,
            model: model.clone(),
        })
        .await;

    let system = compose_system_prompt(&[
        Some(&agent.stable_preamble),
        thread.system_prompt_overlay.as_deref(),
        request.system_prompt_overlay.as_deref(),
    ]);
    let model_request = ModelRequest {
        route: route.clone(),
        system,
        messages: history.clone(),
    };
    let estimated_input = estimate_tokens(&model_request.system)
        + model_request
            .messages
            .iter()
            .map(|m| estimate_tokens(&m.content))
            .sum::<u64>();

    let mut stream = engine.provider.stream(model_request);
    let mut content = String::new();
    let (mut input_tokens, mut output_tokens) = (None, None);
    let mut failure: Option<ModelError> = None;
    let mut stopped = false;
    let mut cancel_closed = false;
    loop {
        tokio::select! {
            biased;
            signal = &mut cancel, if !cancel_closed => match signal {
                Ok(()) => {
                    stopped = true;
                    break;
                }
                // The actor dropped the handle without a stop: keep going.
                Err(_) => cancel_closed = true,
            },
            event = stream.next() => match event {
                Some(ModelEvent::Text(delta)) => {
                    content.push_str(&delta);
                    emitter.emit(ThreadEvent::Token { delta }).await;
                }
                Some(ModelEvent::Usage { input_tokens: i, output_tokens: o }) => {
                    input_tokens = i.or(input_tokens);
                    output_tokens = o.or(output_tokens);
                }
                // Client-side tools (tool_call / requires_action) arrive with
                // the vendor providers; no provider emits these pieces yet.
                Some(ModelEvent::ToolCallStart { .. } | ModelEvent::ToolCallArguments { .. }) => {}
                Some(ModelEvent::Finish(_)) => break,
                Some(ModelEvent::Error(error)) => {
                    failure = Some(error);
                    break;
                }
                None => {
                    failure = Some(ModelError {
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

    let usage = Usage {
        input_tokens: input_tokens.unwrap_or(estimated_input),
        output_tokens: output_tokens.unwrap_or_else(|| estimate_tokens(&content)),
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
        key_source: "platform".into(),
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        metadata,
        stopped,
        estimated: input_tokens.is_none() || output_tokens.is_none(),
        created_at: Utc::now(),
    };

    let answered = !stopped && failure.is_none();
    let assistant = answered.then(|| Message {
        id: MessageId::new(),
        thread_id,
        seq: 0,
        role: Role::Assistant,
        content: content.clone(),
        sender_name: None,
        sender_id: None,
        created_at: Utc::now(),
    });
    let message_id = assistant.as_ref().map(|m| m.id);
    let written = blocking(&engine.store, move |s| {
        if let Some(message) = assistant {
            s.append_message(message)?;
        }
        s.record_usage(UsageRecord {
            message_id,
            ..record
        })
    })
    .await;
    let durable = match written {
        Ok(_) => engine.store.flush().await,
        Err(error) => Err(error),
    };
    if let Err(error) = durable {
        tracing::error!(%error, thread = %thread_id, "storing an answer failed");
        emitter.fail("INTERNAL", "internal error", content).await;
        return None;
    }

    if let Some(failure) = failure {
        emitter.fail(failure.code, failure.detail, content).await;
        return Some(history);
    }
    if answered {
        history.push(ContextMessage {
            role: Role::Assistant,
            content: content.clone(),
        });
    }
    emitter
        .emit(ThreadEvent::Done {
            ok: true,
            message_id,
            content,
            usage: Some(usage),
            stopped: stopped.then_some(true),
        })
        .await;
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
