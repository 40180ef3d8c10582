//! Tool profiles in the turn (`tools.md` §4) with a scripted model and
//! in-memory tools: what a profile offers, a forged call of a denied tool,
//! and `propose_profile_switch`.

use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::json;

use super::tool_steps::{Lookup, StepModel, answers, fixture, names};
use super::*;
use crate::tools::NOT_AVAILABLE;

/// Gives the thread's agent two profiles: `safe` (the default: everything
/// but `wipe`) and `all`.
fn with_profiles(fixture: &Fixture, thread: ThreadId) {
    let agent_id = fixture.store.threads.lock().unwrap()[&thread].agent_id;
    let mut agents = fixture.store.agents.lock().unwrap();
    let agent = agents.get_mut(&agent_id).unwrap();
    let profile = |deny: Option<Vec<String>>| ToolProfile {
        description: None,
        allow: vec!["*".into()],
        deny,
    };
    agent.tool_profiles = Some(
        [
            ("safe".to_owned(), profile(Some(vec!["wi*".into()]))),
            ("all".to_owned(), profile(None)),
        ]
        .into(),
    );
    agent.default_profile = Some("safe".into());
}

fn call_with(id: &str, name: &str, arguments: serde_json::Value) -> Vec<ModelEvent> {
    vec![
        ModelEvent::ToolCallStart {
            index: 0,
            id: id.into(),
            name: name.into(),
        },
        ModelEvent::ToolCallArguments {
            index: 0,
            fragment: arguments.to_string(),
        },
        ModelEvent::Finish(FinishReason::ToolCalls),
    ]
}

#[actix_rt::test]
async fn a_profile_that_denies_a_tool_keeps_it_out_and_refuses_a_forged_call() {
    let model = StepModel::new(vec![call_with("c1", "wipe", json!({})), answers("No.", 1)]);
    let tools = Lookup::new(Duration::ZERO);
    let fixture = fixture(model.clone(), tools.clone());
    let thread = fixture.thread();
    with_profiles(&fixture, thread);
    let events = drain(fixture.send(thread, "wipe it").await).await;
    let offered: Vec<String> = model.requests.lock().unwrap()[0]
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect();
    assert_eq!(offered, ["propose_profile_switch", "lookup"]);
    let result = events.iter().find(|e| e.name() == "tool_result").unwrap();
    assert_eq!(
        *result,
        ThreadEvent::ToolResult {
            tool_name: "wipe".into(),
            tool_call_id: "c1".into(),
            result: Box::new(json!({"error": NOT_AVAILABLE})),
            is_error: Some(true),
        }
    );
    assert_eq!(tools.calls.load(Ordering::SeqCst), 0, "never executed");
    // An unknown profile offers no org tool (fails closed); the built-in is
    // never gated.
    let request = TurnRequest {
        content: "again".into(),
        tool_profile: Some("nonexistent".into()),
        ..TurnRequest::default()
    };
    let Admission::Accepted { reader, .. } =
        fixture.post_request(thread, request, IfBusy::Queue).await
    else {
        panic!("refused");
    };
    drain(reader).await;
    let offered: Vec<String> = model.requests.lock().unwrap()[2]
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect();
    assert_eq!(offered, ["propose_profile_switch"]);
}

#[actix_rt::test]
async fn propose_profile_switch_shows_a_proposal_and_changes_nothing() {
    let model = StepModel::new(vec![
        call_with(
            "c1",
            "propose_profile_switch",
            json!({"target": "all", "reason": "wiping needs it"}),
        ),
        call_with(
            "c2",
            "propose_profile_switch",
            json!({"target": "safe", "reason": "already"}),
        ),
        answers("Asked.", 1),
    ]);
    let fixture = fixture(model, Lookup::new(Duration::ZERO));
    let thread = fixture.thread();
    with_profiles(&fixture, thread);
    let events = drain(fixture.send(thread, "wipe it").await).await;
    let names = names(&events);
    let at = names
        .iter()
        .position(|n| *n == "profile_switch_proposal")
        .unwrap();
    assert_eq!(
        names[at - 2..=at + 1],
        [
            "tool_call",
            "tool_executing",
            "profile_switch_proposal",
            "tool_result"
        ]
    );
    assert_eq!(
        events[at],
        ThreadEvent::ProfileSwitchProposal {
            target: "all".into(),
            reason: "wiping needs it".into(),
        }
    );
    let ThreadEvent::ToolResult { result, .. } = &events[at + 1] else {
        unreachable!()
    };
    assert_eq!(result["proposed"], "all");
    // Proposing the profile in use is an error result, and no proposal.
    assert_eq!(
        names
            .iter()
            .filter(|n| **n == "profile_switch_proposal")
            .count(),
        1
    );
    let last_result = events
        .iter()
        .rev()
        .find(|e| e.name() == "tool_result")
        .unwrap();
    assert!(matches!(
        last_result,
        ThreadEvent::ToolResult {
            is_error: Some(true),
            ..
        }
    ));
    let thread_now = fixture.store.threads.lock().unwrap()[&thread].clone();
    assert_eq!(thread_now.active_profile, None, "Confer never switches");
}
