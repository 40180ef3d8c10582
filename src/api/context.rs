//! `GET /api/threads/{id}/context` (`compaction.md`): what the thread's next
//! model call will see, after compaction, as blocks. Callers who may read
//! the thread's messages may read it; encrypted vendor payloads show as
//! `"encrypted": true`, never their bytes.

use actix_web::{HttpResponse, web};
use chrono::{DateTime, Utc};
use confer_actors::provider::view_for;
use confer_actors::{ContextMessage, ContextRole, ReasoningBlock, ThreadId, ThreadStore};
use serde_json::{Value, json};

use super::timestamp;
use crate::auth::Caller;
use crate::auth::access;
use crate::error::ApiError;
use crate::providers;
use crate::state::AppState;

/// The blocks of one context entry, oldest first.
fn blocks_of(entry: &ContextMessage, out: &mut Vec<Value>) {
    let turn = entry.turn;
    if let Some(block) = &entry.compaction {
        out.push(json!({
            "type": "compaction",
            "turn": turn,
            "method": if block.native_to.is_some() { "native" } else { "summary" },
            "summary": block.summary,
            "encrypted": block.encrypted_content.is_some(),
        }));
    }
    for reasoning in &entry.reasoning {
        out.push(match reasoning {
            ReasoningBlock::Thinking { thinking, .. } => {
                json!({"type": "thinking", "turn": turn, "thinking": thinking, "signed": true})
            }
            ReasoningBlock::RedactedThinking { .. } => {
                json!({"type": "redacted_thinking", "turn": turn, "encrypted": true})
            }
        });
    }
    match entry.role {
        ContextRole::User if !entry.content.is_empty() => out.push(json!({
            "type": "user_text", "turn": turn, "text": entry.content,
        })),
        ContextRole::Assistant if !entry.content.is_empty() => out.push(json!({
            "type": "assistant_text", "turn": turn, "text": entry.content,
        })),
        ContextRole::Tool => out.push(json!({
            "type": "tool_result", "turn": turn,
            "tool_call_id": entry.tool_call_id, "output": entry.content,
        })),
        _ => {}
    }
    for call in &entry.tool_calls {
        out.push(json!({
            "type": "tool_call", "turn": turn,
            "id": call.id, "name": call.name, "arguments": call.arguments,
        }));
    }
}

/// Characters ÷ 4 of everything the call sends (summary included).
fn estimated_tokens(summary: Option<&str>, entries: &[ContextMessage]) -> u64 {
    let chars: usize = summary.map_or(0, str::len)
        + entries
            .iter()
            .map(|e| {
                e.content.len()
                    + e.tool_calls
                        .iter()
                        .map(|c| c.name.len() + c.arguments.to_string().len())
                        .sum::<usize>()
            })
            .sum::<usize>();
    u64::try_from(chars / 4).unwrap_or(u64::MAX)
}

/// `GET /api/threads/{id}/context`: `{blocks, estimated_tokens,
/// compacted_at}` for the agent's default model.
pub async fn get(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<ThreadId>,
) -> Result<HttpResponse, ApiError> {
    let thread = access::thread(&state, &caller, path.into_inner()).await?;
    let (org, agent, id) = (caller.org_id, thread.agent_id, thread.id);
    let (context, agent) = state
        .store
        .run(move |s| Ok((s.context(id)?, s.agent(org, agent)?)))
        .await?;
    let model = agent.map_or_else(|| state.default_model.clone(), |a| a.default_model);
    let route = providers::route(&model, &state.settings.fallback_provider);
    let view = view_for(&context, &route.provider);
    let mut blocks = Vec::new();
    if let Some(summary) = view.summary {
        blocks.push(json!({"type": "summary", "text": summary}));
    }
    for entry in view.entries {
        blocks_of(entry, &mut blocks);
    }
    let compacted_at: Option<DateTime<Utc>> = context
        .iter()
        .rev()
        .find_map(|e| e.compaction.as_ref())
        .and_then(|b| b.at);
    Ok(HttpResponse::Ok().json(json!({
        "blocks": blocks,
        "estimated_tokens": estimated_tokens(view.summary, view.entries),
        "compacted_at": compacted_at.map(timestamp),
    })))
}
