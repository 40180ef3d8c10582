//! The `ThreadStore` port on sled: appends, keyed sends, usage and context.

use super::*;
use crate::store::{UsageFilter, test_secrets};
use chrono::Utc;
use confer_actors::{ContextRole, MessageId, Role, UsageId};

fn usage(org: OrgId, agent: AgentId, thread: ThreadId, tokens: u64) -> UsageRecord {
    UsageRecord {
        id: UsageId::new(),
        org_id: org,
        agent_id: agent,
        thread_id: Some(thread),
        message_id: None,
        model: "m".into(),
        provider: "builtin".into(),
        key_source: "platform".into(),
        input_tokens: tokens,
        output_tokens: tokens,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        metadata: Default::default(),
        publication_id: None,
        delegation: None,
        stopped: false,
        estimated: false,
        step: Some(1),
        purpose: Default::default(),
        compacted: false,
        iterations: None,
        created_at: Utc::now(),
    }
}

#[test]
fn the_context_tail_is_read_from_the_end_of_the_context() {
    let dir = tempfile::tempdir().unwrap();
    let store = SledStore::open(dir.path(), test_secrets(dir.path())).unwrap();
    let thread = ThreadId::new();
    let pending = |store: &SledStore| {
        let tail = store.context_tail(thread).unwrap();
        confer_actors::provider::pending_tool_calls(&tail)
    };
    let append = |entries: Vec<ContextMessage>| {
        let write = ThreadAppend {
            context: entries,
            ..ThreadAppend::default()
        };
        store.append(thread, write).unwrap();
    };
    assert!(pending(&store).is_empty());
    let mut history: Vec<ContextMessage> = (0..50)
        .map(|n| ContextMessage::text(ContextRole::User, format!("m{n}")))
        .collect();
    let mut asks = ContextMessage::text(ContextRole::Assistant, "");
    asks.tool_calls = ["a", "b"]
        .map(|id| confer_actors::ToolCall {
            id: id.into(),
            name: "f".into(),
            arguments: serde_json::json!({}),
            arguments_error: None,
        })
        .into();
    history.push(asks);
    history.push(ContextMessage::tool_result("a", "done"));
    append(history);
    // The assistant's entry and what follows it, not the 50 before.
    assert_eq!(store.context_tail(thread).unwrap().len(), 2);
    assert_eq!(pending(&store), ["b"]);
    append(vec![ContextMessage::tool_result("b", "done")]);
    assert!(pending(&store).is_empty());
    append(vec![ContextMessage::text(ContextRole::Assistant, "ok")]);
    assert!(pending(&store).is_empty());
}

#[test]
fn the_answer_links_the_usage_of_every_model_call_of_its_turn() {
    let dir = tempfile::tempdir().unwrap();
    let store = SledStore::open(dir.path(), test_secrets(dir.path())).unwrap();
    let (org, agent, thread) = (OrgId::new(), AgentId::new(), ThreadId::new());
    // A compaction's call is billed when it ends, unlinked; a tool step's
    // record is kept by the turn until its answer.
    let billed = store.record_usage(usage(org, agent, thread, 1)).unwrap();
    let tool_step = usage(org, agent, thread, 3);
    let answer = Message {
        id: MessageId::new(),
        thread_id: thread,
        seq: 0,
        role: Role::Assistant,
        content: "done".into(),
        sender_name: None,
        sender_id: None,
        created_at: Utc::now(),
        citations: Vec::new(),
    };
    let write = ThreadAppend {
        turn: Some(7),
        listed: Some(answer.clone()),
        context: vec![ContextMessage::text(ContextRole::Assistant, "done")],
        usage: Some(usage(org, agent, thread, 2)),
        billed: vec![billed.clone()],
        earlier_calls: vec![tool_step.clone()],
        ..ThreadAppend::default()
    };
    let stored = store.append(thread, write).unwrap().unwrap();
    assert_eq!(stored.seq, 1);
    assert_eq!(store.last_turn(thread).unwrap(), 7);

    let filter = UsageFilter {
        thread: Some(thread),
        agent: None,
    };
    let page = store
        .list_usage(org, filter, None, 10, |_| Ok(true))
        .unwrap();
    let records = page.items;
    assert_eq!(records.len(), 3, "linked in place, not copied: {records:?}");
    assert!(records.iter().all(|r| r.message_id == Some(answer.id)));
    let mut tokens: Vec<u64> = records.iter().map(|r| r.input_tokens).collect();
    tokens.sort_unstable();
    assert_eq!(tokens, [1, 2, 3]);
    assert!(records.iter().any(|r| r.id == tool_step.id));
    assert!(
        records
            .iter()
            .any(|r| r.id == billed.id && r.created_at == billed.created_at)
    );

    // A lower turn number never lowers the thread's last turn.
    let write = ThreadAppend {
        turn: Some(3),
        ..ThreadAppend::default()
    };
    store.append(thread, write).unwrap();
    assert_eq!(store.last_turn(thread).unwrap(), 7);
}
