//! Tool gating (`tools.md` §4): which server-side tools a turn offers under
//! its effective tool profile, which tools shadow others of the same name,
//! the built-in `propose_profile_switch`, and the tool-call id rule.

use std::collections::BTreeMap;

use serde_json::json;

use crate::domain::{Agent, ToolProfile};
use crate::events::ThreadEvent;
use crate::provider::{ContextMessage, ToolCall, ToolDefinition};
use crate::tools::{CallPlan, PROPOSE_PROFILE_SWITCH, ServerTools, ToolOutput};

/// The profile a turn runs under: the send's, else the thread's active
/// one, else the agent's default; `None` when none is set.
pub fn effective_profile<'a>(
    send: Option<&'a str>,
    thread: Option<&'a str>,
    agent: &'a Agent,
) -> Option<&'a str> {
    send.or(thread).or(agent.default_profile.as_deref())
}

/// Whether `pattern` matches the whole of `name`: `*` is any run of
/// characters (empty included), `.` stands for `__` (so `github.*` covers the
/// tools of MCP server `github`), everything else is itself, case-sensitive.
pub fn pattern_matches(pattern: &str, name: &str) -> bool {
    glob(&pattern.replace('.', "__"), name)
}

/// Whether `pattern` matches the whole of `text`, `*` being any run of
/// characters (empty included) and everything else itself (also the price
/// table's model patterns).
pub fn glob(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let Some(first) = parts.next() else {
        return false;
    };
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        // No `*`: the pattern is the whole text.
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// Whether a profile offers the tool called `name`.
/// Whether the agent's default profile offers the tool `name` (no default
/// profile: every tool; one the agent does not define: none).
pub fn default_offers(agent: &Agent, name: &str) -> bool {
    match &agent.default_profile {
        None => true,
        Some(profile) => agent
            .tool_profiles
            .as_ref()
            .and_then(|all| all.get(profile))
            .is_some_and(|p| allows(p, name)),
    }
}

fn allows(profile: &ToolProfile, name: &str) -> bool {
    profile.allow.iter().any(|p| pattern_matches(p, name))
        && !profile
            .deny
            .iter()
            .flatten()
            .any(|p| pattern_matches(p, name))
}

/// What a turn offers besides the send's own tools.
#[derive(Debug, Default)]
pub struct Offered {
    /// Server-side tools in request order: built-in, org, integration,
    /// then MCP, each kind by name.
    pub tools: Vec<ToolDefinition>,
    /// Names left out because an earlier kind has a tool of that name.
    pub shadowed: Vec<String>,
    /// The profile the turn runs under.
    pub profile: Option<String>,
}

/// Gates the server-side tools for a turn. No profile: every tool; a
/// profile the agent defines: the tools it allows; any other name: none
/// (fails closed). The send's client-side tools come first and shadow the
/// rest; `propose_profile_switch` is offered (ungated) among the built-in
/// tools when the agent has two profiles or more.
pub fn offer(
    agent: &Agent,
    profile: Option<&str>,
    client: &[ToolDefinition],
    server: ServerTools,
) -> Offered {
    let profiles = agent.tool_profiles.as_ref();
    let gate = |name: &str| match profile {
        None => true,
        Some(profile) => profiles
            .and_then(|all| all.get(profile))
            .is_some_and(|p| allows(p, name)),
    };
    let ServerTools {
        mut builtin,
        mut org,
        mut integration,
        mut mcp,
        // Taken by the turn before the offer.
        skills_prompt: _,
    } = server;
    builtin.retain(|tool| gate(&tool.name));
    builtin.extend(
        profiles
            .filter(|all| all.len() >= 2)
            .map(propose_definition),
    );
    org.retain(|tool| gate(&tool.name));
    integration.retain(|tool| gate(&tool.name));
    mcp.retain(|tool| gate(&tool.name));
    for kind in [&mut builtin, &mut org, &mut integration, &mut mcp] {
        kind.sort_by(|a, b| a.name.cmp(&b.name));
    }
    let mut tools = builtin;
    tools.extend(org);
    tools.extend(integration);
    tools.extend(mcp);
    let mut shadowed = Vec::new();
    let mut seen: Vec<&str> = client.iter().map(|t| t.name.as_str()).collect();
    let mut kept = Vec::with_capacity(tools.len());
    for tool in &tools {
        if seen.contains(&tool.name.as_str()) {
            shadowed.push(tool.name.clone());
        } else {
            seen.push(&tool.name);
            kept.push(tool.clone());
        }
    }
    Offered {
        tools: kept,
        shadowed,
        profile: profile.map(str::to_owned),
    }
}

/// The built-in tool's definition: `target` one of the agent's profiles.
fn propose_definition(profiles: &BTreeMap<String, ToolProfile>) -> ToolDefinition {
    let names: Vec<&String> = profiles.keys().collect();
    ToolDefinition {
        name: PROPOSE_PROFILE_SWITCH.into(),
        description: Some(
            "Propose that the user switch this conversation to another tool profile. \
             The profile changes only if the user accepts."
                .into(),
        ),
        parameters: json!({
            "type": "object",
            "properties": {
                "target": {"type": "string", "enum": names},
                "reason": {"type": "string"},
            },
            "required": ["target", "reason"],
        }),
    }
}

/// How the turn answers a call of `propose_profile_switch`: a proposal for
/// the client when the target is another profile of the agent, else an
/// error result. Confer never switches; the client PATCHes the thread.
pub fn propose(agent: &Agent, effective: Option<&str>, call: &ToolCall) -> CallPlan {
    let target = call.arguments["target"].as_str().unwrap_or_default();
    let reason = call.arguments["reason"].as_str().unwrap_or_default();
    let known = agent
        .tool_profiles
        .as_ref()
        .is_some_and(|all| all.contains_key(target));
    if !known {
        return CallPlan::Answer {
            output: ToolOutput::error(format!("`{target}` is not a profile of this agent")),
            announce: None,
        };
    }
    if Some(target) == effective {
        return CallPlan::Answer {
            output: ToolOutput::error(format!("`{target}` is already the profile in use")),
            announce: None,
        };
    }
    CallPlan::Answer {
        output: ToolOutput {
            result: json!({
                "proposed": target,
                "status": "shown to the user; the profile changes only if they accept",
            }),
            is_error: false,
        },
        announce: Some(ThreadEvent::ProfileSwitchProposal {
            target: target.to_owned(),
            reason: reason.to_owned(),
        }),
    }
}

/// Whether `name` may be shown to a model: `^[a-zA-Z0-9_-]{1,64}$` (the
/// rule of tool names and of tool-call ids alike).
pub fn is_model_facing_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn well_formed(id: &str) -> bool {
    is_model_facing_name(id)
}

/// Replaces the ids of `calls` that are missing, malformed or already used
/// in the thread (or earlier in `calls`) with `call_{uuid}`.
pub fn fix_call_ids(history: &[ContextMessage], calls: &mut [ToolCall]) {
    if calls.is_empty() {
        return;
    }
    let mut used: Vec<String> = history
        .iter()
        .flat_map(|m| m.tool_calls.iter().map(|c| c.id.clone()))
        .collect();
    for call in calls {
        if !well_formed(&call.id) || used.contains(&call.id) {
            call.id = format!("call_{}", uuid::Uuid::new_v4().simple());
        }
        used.push(call.id.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_whole_names_with_stars_and_dots() {
        assert!(pattern_matches("*", "anything"));
        assert!(pattern_matches("*", ""));
        assert!(pattern_matches("get_*", "get_weather"));
        assert!(!pattern_matches("get_*", "set_weather"));
        assert!(pattern_matches("github.*", "github__create_issue"));
        assert!(!pattern_matches("github.*", "github_create_issue"));
        assert!(pattern_matches("*_issue", "github__create_issue"));
        assert!(pattern_matches("a*b*c", "aXXbYYc"));
        assert!(!pattern_matches("a*b*c", "aXXcYYb"));
        assert!(pattern_matches("lookup", "lookup"));
        assert!(!pattern_matches("lookup", "lookups"));
        assert!(!pattern_matches("Lookup", "lookup"));
    }

    #[test]
    fn ids_that_are_missing_repeated_or_malformed_are_replaced() {
        let mut earlier = ContextMessage::text(crate::provider::ContextRole::Assistant, "");
        earlier.tool_calls = vec![ToolCall {
            id: "used".into(),
            name: "f".into(),
            arguments: json!({}),
            arguments_error: None,
        }];
        let call = |id: &str| ToolCall {
            id: id.into(),
            name: "f".into(),
            arguments: json!({}),
            arguments_error: None,
        };
        let mut calls = vec![
            call("ok-1"),
            call(""),
            call("used"),
            call("bad id"),
            call("ok-1"),
        ];
        fix_call_ids(&[earlier], &mut calls);
        assert_eq!(calls[0].id, "ok-1");
        for fixed in &calls[1..] {
            assert!(
                fixed.id.starts_with("call_") && well_formed(&fixed.id),
                "{}",
                fixed.id
            );
        }
        let ids: std::collections::BTreeSet<&str> = calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids.len(), calls.len(), "all distinct");
    }

    fn tool(name: &str) -> ToolDefinition {
        ToolDefinition {
            name: name.into(),
            description: None,
            parameters: json!({"type": "object"}),
        }
    }

    #[test]
    fn kinds_come_in_order_by_name_and_mcp_tools_are_gated_by_their_server() {
        let now = chrono::Utc::now();
        let mut agent = Agent {
            id: crate::AgentId::new(),
            org_id: crate::OrgId::new(),
            name: "a".into(),
            description: String::new(),
            stable_preamble: String::new(),
            default_model: "m".into(),
            tool_profiles: None,
            default_profile: None,
            runtime_provider: crate::domain::RuntimeProvider::E2b,
            project_id: None,
            created_at: now,
            updated_at: now,
            deleted_at: None,
        };
        let server = || ServerTools {
            builtin: vec![tool("plan_create")],
            org: vec![tool("lookup")],
            integration: vec![tool("query_orders"), tool("count_orders")],
            mcp: vec![
                tool("github__search"),
                tool("docs__read"),
                tool("github__create_issue"),
            ],
            skills_prompt: None,
        };
        let names = |offered: &Offered| -> Vec<String> {
            offered.tools.iter().map(|t| t.name.clone()).collect()
        };
        let all = offer(&agent, None, &[], server());
        assert_eq!(
            names(&all),
            [
                "plan_create",
                "lookup",
                "count_orders",
                "query_orders",
                "docs__read",
                "github__create_issue",
                "github__search"
            ]
        );
        agent.tool_profiles = Some(
            [(
                "gh".to_owned(),
                ToolProfile {
                    description: None,
                    allow: vec!["github.*".into()],
                    deny: Some(vec!["*create*".into()]),
                },
            )]
            .into(),
        );
        let gated = offer(&agent, Some("gh"), &[], server());
        assert_eq!(names(&gated), ["github__search"]);
        // A client-side tool of the same name shadows the MCP tool.
        let shadowed = offer(&agent, None, &[tool("docs__read")], server());
        assert_eq!(shadowed.shadowed, ["docs__read"]);
    }
}
