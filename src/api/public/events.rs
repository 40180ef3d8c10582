//! What a public chat's reader sees of a thread's events (`publishing.md`
//! rule 9): `meta` without `shadowedTools`, `queued`, `watching`,
//! `turn_gap`, `token`, `compaction`, `tool_call` with only the tool's id
//! and name, `tool_executing`, `tool_result` without its result, `error`
//! and `done`. Nothing else: not thinking, not tool arguments or payloads,
//! not auth challenges, and no event added later unless its file says so
//! (the match below has no catch-all that lets one through).

use confer_actors::{FrameId, ThreadEvent};
use serde::Serialize;

use crate::api::sse::{encode_data, encode_into};

#[derive(Serialize)]
struct PublicTool<'a> {
    id: &'a str,
    name: &'a str,
}

#[derive(Serialize)]
struct PublicToolCall<'a> {
    tool: PublicTool<'a>,
}

#[derive(Serialize)]
struct PublicToolResult<'a> {
    tool_name: &'a str,
    tool_call_id: &'a str,
    #[serde(rename = "isError", skip_serializing_if = "Option::is_none")]
    is_error: Option<bool>,
}

/// Appends `event` as a public reader sees it, or nothing.
pub fn encode_public(out: &mut bytes::BytesMut, id: Option<FrameId>, event: &ThreadEvent) {
    match event {
        ThreadEvent::Meta(meta) if !meta.shadowed_tools.is_empty() => {
            let mut shown = (**meta).clone();
            shown.shadowed_tools.clear();
            encode_into(out, id, &ThreadEvent::Meta(Box::new(shown)));
        }
        ThreadEvent::Meta(_)
        | ThreadEvent::Token { .. }
        | ThreadEvent::Compaction { .. }
        | ThreadEvent::Citation(_)
        | ThreadEvent::ToolExecuting { .. }
        | ThreadEvent::Error { .. }
        | ThreadEvent::Queued { .. }
        | ThreadEvent::Watching { .. }
        | ThreadEvent::TurnGap { .. }
        | ThreadEvent::Done(_) => encode_into(out, id, event),
        ThreadEvent::ToolCall { tool } => encode_data(
            out,
            id,
            event.name(),
            &PublicToolCall {
                tool: PublicTool {
                    id: &tool.id,
                    name: &tool.name,
                },
            },
        ),
        ThreadEvent::ToolResult {
            tool_name,
            tool_call_id,
            is_error,
            ..
        } => encode_data(
            out,
            id,
            event.name(),
            &PublicToolResult {
                tool_name,
                tool_call_id,
                is_error: *is_error,
            },
        ),
        ThreadEvent::Thinking { .. }
        | ThreadEvent::ProfileSwitchProposal { .. }
        | ThreadEvent::AuthChallenge { .. }
        // A delegate's frames: delegate tools are never public.
        | ThreadEvent::ToolProgress(_)
        // A computer's output: computer tools are never public.
        | ThreadEvent::ToolOutput(_)
        // A code session's: code sessions are never public.
        | ThreadEvent::SessionStatus(_)
        | ThreadEvent::RequiresAction { .. } => {}
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use confer_actors::context::ToolCall;

    fn shown(event: &ThreadEvent) -> String {
        let mut out = bytes::BytesMut::new();
        encode_public(&mut out, None, event);
        String::from_utf8(out.to_vec()).unwrap()
    }

    #[test]
    fn payloads_and_private_events_never_reach_a_visitor() {
        let call = ThreadEvent::ToolCall {
            tool: Box::new(ToolCall {
                id: "c1".into(),
                name: "lookup".into(),
                arguments: serde_json::json!({"secret": "s3"}),
                arguments_error: None,
            }),
        };
        assert_eq!(
            shown(&call),
            "event: tool_call\ndata: {\"tool\":{\"id\":\"c1\",\"name\":\"lookup\"}}\n\n"
        );
        let result = ThreadEvent::ToolResult {
            tool_name: "lookup".into(),
            tool_call_id: "c1".into(),
            result: Box::new(serde_json::json!({"rows": ["s3"]})),
            is_error: Some(true),
        };
        let text = shown(&result);
        assert!(
            !text.contains("s3") && text.contains("\"isError\":true"),
            "{text}"
        );
        assert_eq!(shown(&ThreadEvent::Thinking { delta: "hm".into() }), "");
        assert_eq!(
            shown(&ThreadEvent::RequiresAction { tool_calls: vec![] }),
            ""
        );
        assert!(shown(&ThreadEvent::Token { delta: "hi".into() }).contains("hi"));
    }
}
