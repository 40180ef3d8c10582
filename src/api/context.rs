//! `GET /api/threads/{id}/context` (`compaction.md`): what the thread's next
//! model call will see, after compaction, as blocks. Callers who may read
//! the thread's messages may read it; encrypted vendor payloads show as
//! `"encrypted": true`, never their bytes.

use actix_web::{HttpResponse, web};
use chrono::{DateTime, Utc};
use confer_actors::provider::view_for;
use confer_actors::{ContextMessage, ContextRole, ReasoningBlock, ThreadId};
use serde::Serialize;
use serde_json::Value;

use super::timestamp;
use crate::auth::Caller;
use crate::auth::access;
use crate::error::ApiError;
use crate::providers;
use crate::state::AppState;

/// A block of the context as the endpoint shows it (`type` names it).
#[derive(Serialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContextBlock {
    /// Confer's summary that stands for the turns before the tail.
    Summary {
        text: String,
    },
    /// A compaction block: the vendor's (`native`) or Confer's (`summary`).
    Compaction {
        turn: Option<u64>,
        method: &'static str,
        summary: String,
        /// Whether the vendor's opaque payload is kept (never shown).
        encrypted: bool,
    },
    /// Visible thinking, kept with the vendor's signature.
    Thinking {
        turn: Option<u64>,
        thinking: String,
        signed: bool,
    },
    /// Thinking the vendor encrypted.
    RedactedThinking {
        turn: Option<u64>,
        encrypted: bool,
    },
    UserText {
        turn: Option<u64>,
        text: String,
    },
    AssistantText {
        turn: Option<u64>,
        text: String,
    },
    ToolResult {
        turn: Option<u64>,
        tool_call_id: Option<String>,
        output: String,
    },
    ToolCall {
        turn: Option<u64>,
        id: String,
        name: String,
        /// The model's raw text when it was not valid JSON.
        arguments: Value,
        /// `"invalid JSON"` then.
        #[serde(skip_serializing_if = "Option::is_none")]
        arguments_error: Option<String>,
    },
}

/// The `GET .../context` answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ContextView {
    blocks: Vec<ContextBlock>,
    /// Characters ÷ 4 of everything the next call sends.
    estimated_tokens: u64,
    compacted_at: Option<String>,
}

/// The blocks of one context entry, oldest first.
fn blocks_of(entry: &ContextMessage, out: &mut Vec<ContextBlock>) {
    let turn = entry.turn;
    if let Some(block) = &entry.compaction {
        out.push(ContextBlock::Compaction {
            turn,
            method: if block.native_to.is_some() {
                "native"
            } else {
                "summary"
            },
            summary: block.summary.clone(),
            encrypted: block.encrypted_content.is_some(),
        });
    }
    for reasoning in &entry.reasoning {
        out.push(match reasoning {
            ReasoningBlock::Thinking { thinking, .. } => ContextBlock::Thinking {
                turn,
                thinking: thinking.clone(),
                signed: true,
            },
            ReasoningBlock::RedactedThinking { .. } => ContextBlock::RedactedThinking {
                turn,
                encrypted: true,
            },
        });
    }
    match entry.role {
        ContextRole::User if !entry.content.is_empty() => out.push(ContextBlock::UserText {
            turn,
            text: entry.content.clone(),
        }),
        ContextRole::Assistant if !entry.content.is_empty() => {
            out.push(ContextBlock::AssistantText {
                turn,
                text: entry.content.clone(),
            })
        }
        ContextRole::Tool => out.push(ContextBlock::ToolResult {
            turn,
            tool_call_id: entry.tool_call_id.clone(),
            output: entry.content.clone(),
        }),
        _ => {}
    }
    for call in &entry.tool_calls {
        out.push(ContextBlock::ToolCall {
            turn,
            id: call.id.clone(),
            name: call.name.clone(),
            arguments: call.arguments.clone(),
            arguments_error: call.arguments_error.clone(),
        });
    }
}

/// `GET /api/threads/{id}/context`: `{blocks, estimated_tokens,
/// compacted_at}` for the agent's default model.
#[utoipa::path(get, path = "/api/threads/{thread_id}/context", tag = "threads", operation_id = "context_get", security(("bearer" = [])), params(("thread_id" = uuid::Uuid, Path, description = "The thread's id")), responses((status = 200, description = "What the next model call will see, after compaction", body = ContextView)))]
pub async fn get(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ThreadId>,
) -> Result<HttpResponse, ApiError> {
    let thread = access::thread(&state, &caller, path.into_inner()).await?;
    let (org, agent, id) = (caller.org_id, thread.agent_id, thread.id);
    let (context, agent) = futures_util::try_join!(
        state.store.threads().context(id),
        state.store.agents().agent(org, agent),
    )?;
    let preamble = agent.as_ref().map(|a| a.stable_preamble.clone());
    let system = confer_actors::turn::compose_system_prompt(&[
        preamble.as_deref(),
        thread.system_prompt_overlay.as_deref(),
    ]);
    let model = agent.map_or_else(|| state.default_model.clone(), |a| a.default_model);
    let route = providers::route(&model, &state.settings.fallback_provider);
    let view = view_for(&context, &route.provider);
    let tokens = providers::tokens::counter_for(&route).await;
    let mut blocks = Vec::new();
    if let Some(summary) = view.summary {
        blocks.push(ContextBlock::Summary {
            text: summary.to_owned(),
        });
    }
    for entry in view.entries() {
        blocks_of(entry, &mut blocks);
    }
    let compacted_at: Option<DateTime<Utc>> = context
        .iter()
        .rev()
        .find_map(|e| e.compaction.as_ref())
        .and_then(|b| b.at);
    Ok(HttpResponse::Ok().json(ContextView {
        blocks,
        estimated_tokens: confer_actors::compaction::estimate(tokens.as_ref(), &system, &view),
        compacted_at: compacted_at.map(timestamp),
    }))
}
