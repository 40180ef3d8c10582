//! The rules a send must meet, decided in one place.
//!
//! The thread's actor applies them when it admits a send (so a broken rule is
//! a 409 or 422 and nothing is stored), and the turn applies the thread's part
//! again when it starts: a send that waited behind another is checked against
//! the thread as that turn left it. Both call [`against_thread`]; the HTTP
//! layer only parses and authorizes.

use crate::context::pending_tool_calls;
use crate::domain::Agent;
use crate::gating;
use crate::provider::ContextMessage;
use crate::turn::TurnRequest;

/// A rule a send broke.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BrokenRule {
    /// The thread's agent was deleted (409 `CONFLICT`).
    #[error("the thread's agent was deleted")]
    AgentDeleted,
    /// A field breaks a rule (422 `VALIDATION_ERROR`); `field` names it.
    #[error("{field}: {detail}")]
    Invalid { field: String, detail: String },
}

impl BrokenRule {
    fn invalid(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::Invalid {
            field: field.into(),
            detail: detail.into(),
        }
    }
}

/// Whether the send adds nothing: no text and no tool results. Only a send
/// that continues an answer the vendor paused after compacting may
/// (`compaction.md`).
pub fn adds_nothing(request: &TurnRequest) -> bool {
    request.content.trim().is_empty() && request.tool_results.is_empty()
}

/// Whether [`against_thread`] needs the thread's context for this send.
pub fn needs_context(request: &TurnRequest) -> bool {
    !request.tool_results.is_empty() || adds_nothing(request)
}

/// The rules on the send alone: `max_content` bytes of content at most, a
/// non-empty model override, client tools with unique model-facing names
/// and JSON Schema parameters.
pub fn on_request(request: &TurnRequest, max_content: usize) -> Result<(), BrokenRule> {
    if request.content.len() > max_content {
        return Err(BrokenRule::invalid(
            "content",
            format!("at most {max_content} bytes (CONFER_MAX_CONTENT_BYTES)"),
        ));
    }
    if request
        .model_override
        .as_deref()
        .is_some_and(|m| m.trim().is_empty())
    {
        return Err(BrokenRule::invalid("modelOverride", "must not be empty"));
    }
    let mut names = std::collections::HashSet::new();
    for (i, tool) in request.tools.iter().enumerate() {
        if tool.name.trim().is_empty() || !names.insert(tool.name.as_str()) {
            return Err(BrokenRule::invalid(
                format!("tools[{i}].name"),
                "must be non-empty and unique",
            ));
        }
        if !gating::is_model_facing_name(&tool.name) {
            return Err(BrokenRule::invalid(
                format!("tools[{i}].name"),
                "must be 1 to 64 characters of a-z, A-Z, 0-9, _ and -",
            ));
        }
        if !tool.parameters.is_object() {
            return Err(BrokenRule::invalid(
                format!("tools[{i}].parameters"),
                "must be a JSON Schema object",
            ));
        }
    }
    Ok(())
}

/// The rules against the thread: its agent exists, and, given its context
/// (`None`: not known yet, decided when the turn starts), every tool result
/// answers a pending call and an empty send continues a paused answer.
pub fn against_thread(
    request: &TurnRequest,
    agent: Option<&Agent>,
    context: Option<&[ContextMessage]>,
) -> Result<(), BrokenRule> {
    if agent.is_none_or(Agent::is_deleted) {
        return Err(BrokenRule::AgentDeleted);
    }
    let Some(context) = context else {
        return Ok(());
    };
    if !request.tool_results.is_empty() {
        let pending = pending_tool_calls(context);
        if let Some(stray) = request
            .tool_results
            .iter()
            .find(|r| !pending.contains(&r.tool_call_id))
        {
            return Err(BrokenRule::invalid(
                "toolResults",
                format!("`{}` answers no pending tool call", stray.tool_call_id),
            ));
        }
    }
    if adds_nothing(request)
        && !request.continuation
        && !context
            .last()
            .is_some_and(ContextMessage::is_paused_compaction)
    {
        return Err(BrokenRule::invalid(
            "content",
            "must not be empty (only a send after a paused compaction may be)",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::{ContextRole, ToolCall};
    use crate::turn::ToolResult;

    fn agent(deleted: bool) -> Agent {
        serde_json::from_value(serde_json::json!({
            "id": crate::ids::AgentId::new(), "org_id": crate::ids::OrgId::new(),
            "name": "a", "description": "", "stable_preamble": "", "default_model": "builtin/echo",
            "tool_profiles": null, "default_profile": null, "runtime_provider": "e2b",
            "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
            "deleted_at": deleted.then_some("2026-01-02T00:00:00Z"),
        }))
        .unwrap()
    }

    fn answering(ids: &[&str]) -> TurnRequest {
        TurnRequest {
            tool_results: ids
                .iter()
                .map(|id| ToolResult {
                    tool_call_id: (*id).into(),
                    output: "ok".into(),
                })
                .collect(),
            ..TurnRequest::default()
        }
    }

    fn asking(ids: &[&str]) -> ContextMessage {
        let mut asks = ContextMessage::text(ContextRole::Assistant, "");
        asks.tool_calls = ids
            .iter()
            .map(|id| ToolCall {
                id: (*id).into(),
                name: "f".into(),
                arguments: serde_json::json!({}),
                arguments_error: None,
            })
            .collect();
        asks
    }

    fn field(result: Result<(), BrokenRule>) -> String {
        match result {
            Err(BrokenRule::Invalid { field, .. }) => field,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_agent_must_exist_whatever_the_context() {
        let hello = TurnRequest {
            content: "hi".into(),
            ..TurnRequest::default()
        };
        let deleted = agent(true);
        for agent in [None, Some(&deleted)] {
            assert_eq!(
                against_thread(&hello, agent, None),
                Err(BrokenRule::AgentDeleted)
            );
        }
        assert_eq!(
            against_thread(&hello, Some(&agent(false)), Some(&[])),
            Ok(())
        );
    }

    #[test]
    fn tool_results_answer_pending_calls_and_an_empty_send_a_pause() {
        let agent = agent(false);
        let context = [
            ContextMessage::text(ContextRole::User, "weather?"),
            asking(&["a", "b"]),
            ContextMessage::tool_result("a", "sunny"),
        ];
        let check = |request: &TurnRequest, context: &[ContextMessage]| {
            against_thread(request, Some(&agent), Some(context))
        };
        assert_eq!(check(&answering(&["b"]), &context), Ok(()));
        assert_eq!(field(check(&answering(&["a"]), &context)), "toolResults");
        assert_eq!(
            field(check(&answering(&["b", "z"]), &context)),
            "toolResults"
        );
        // Not known yet (a turn runs): decided when the send's turn starts.
        assert_eq!(
            against_thread(&answering(&["z"]), Some(&agent), None),
            Ok(())
        );

        let empty = TurnRequest::default();
        assert!(needs_context(&empty) && needs_context(&answering(&["b"])));
        assert_eq!(field(check(&empty, &context)), "content");
        let mut paused = ContextMessage::text(ContextRole::Assistant, "");
        paused.compaction =
            Some(serde_json::from_value(serde_json::json!({"summary": "so far"})).unwrap());
        assert!(paused.is_paused_compaction());
        assert_eq!(check(&empty, &[paused]), Ok(()));
        // A run's continuation may be empty whatever the context ends with.
        let continuing = TurnRequest {
            continuation: true,
            ..TurnRequest::default()
        };
        assert_eq!(check(&continuing, &context), Ok(()));
    }

    #[test]
    fn the_fields_of_a_send_are_named_when_they_break_a_rule() {
        let tool = |name: &str, parameters: serde_json::Value| crate::provider::ToolDefinition {
            name: name.into(),
            description: None,
            parameters,
        };
        let with = |tools: Vec<crate::provider::ToolDefinition>| TurnRequest {
            content: "hi".into(),
            tools,
            ..TurnRequest::default()
        };
        let object = serde_json::json!({"type": "object"});
        assert_eq!(
            on_request(&with(vec![tool("f", object.clone())]), 2),
            Ok(())
        );
        assert_eq!(field(on_request(&with(vec![]), 1)), "content");
        let twice = with(vec![tool("f", object.clone()), tool("f", object.clone())]);
        assert_eq!(field(on_request(&twice, 10)), "tools[1].name");
        assert_eq!(
            field(on_request(&with(vec![tool("a b", object)]), 10)),
            "tools[0].name"
        );
        let no_schema = with(vec![tool("f", serde_json::json!("x"))]);
        assert_eq!(field(on_request(&no_schema, 10)), "tools[0].parameters");
        let blank_model = TurnRequest {
            model_override: Some(" ".into()),
            ..with(vec![])
        };
        assert_eq!(field(on_request(&blank_model, 10)), "modelOverride");
    }
}
