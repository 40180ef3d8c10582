//! The cases of the store conformance suite (`store_conformance.rs` runs
//! each on both stores): only the ports are used.

use std::sync::Arc;

use chrono::Utc;
use confer::store::UsageFilter;
use confer_actors::{
    AgentId, CompactionConfig, ContextMessage, ContextRole, CredentialConfig, OrgId, Role,
    ThreadAppend, ThreadId,
};

use crate::store_conformance::{Ports, keyed_record, message, seeded, thread, usage};

pub(crate) async fn records_stay_in_their_org(ports: Ports) {
    let (org, agent, thread) = seeded(&ports).await;
    let other = OrgId::new();
    assert!(ports.agents.agent(other, agent.id).await.unwrap().is_none());
    assert!(
        ports
            .threads
            .thread(other, thread.id)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        ports
            .turns
            .turn_inputs(other, thread.id, true)
            .await
            .unwrap()
            .is_none()
    );

    let credentials = CredentialConfig {
        enabled: true,
        resolver_url: "https://resolver.example/keys".into(),
        timeout_ms: 1_500,
        signing_secret: Some("whsec-conformance".into()),
    };
    ports
        .agents
        .put_credentials(org, agent.id, credentials.clone())
        .await
        .unwrap();
    let compaction = CompactionConfig {
        enabled: true,
        ..Default::default()
    };
    ports
        .agents
        .put_compaction(org, agent.id, compaction.clone())
        .await
        .unwrap();
    ports
        .turns
        .append_durably(
            thread.id,
            ThreadAppend {
                listed: Some(message(thread.id, Role::User, "hello")),
                context: vec![ContextMessage::text(ContextRole::User, "hello")],
                ..Default::default()
            },
        )
        .await
        .unwrap();

    let inputs = ports
        .turns
        .turn_inputs(org, thread.id, false)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(inputs.thread, thread);
    assert_eq!(inputs.agent.as_ref().map(|a| a.id), Some(agent.id));
    assert_eq!(
        inputs.credentials, credentials,
        "the secret comes back opened"
    );
    assert_eq!(inputs.compaction, compaction);
    assert!(inputs.history.is_none(), "history only when asked for");
    let inputs = ports
        .turns
        .turn_inputs(org, thread.id, true)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(inputs.history.unwrap().len(), 1);
    assert_eq!(
        ports.agents.credentials(org, agent.id).await.unwrap(),
        credentials
    );
}

pub(crate) async fn appends_number_densely(ports: Ports) {
    let (_, _, thread) = seeded(&ports).await;
    let writes = (0..16).map(|n| {
        let turns = Arc::clone(&ports.turns);
        let id = thread.id;
        tokio::spawn(async move {
            turns
                .append_durably(
                    id,
                    ThreadAppend {
                        listed: Some(message(id, Role::User, &format!("message {n}"))),
                        context: vec![ContextMessage::text(
                            ContextRole::User,
                            format!("entry {n}"),
                        )],
                        ..Default::default()
                    },
                )
                .await
                .unwrap()
        })
    });
    let mut seqs: Vec<u64> = Vec::new();
    for write in writes {
        seqs.push(write.await.unwrap().listed.unwrap().seq);
    }
    seqs.sort_unstable();
    assert_eq!(
        seqs,
        (1..=16).collect::<Vec<_>>(),
        "one seq each, none skipped"
    );
    let (page, total) = ports.threads.messages(thread.id, 10, 100).await.unwrap();
    assert_eq!(total, 16);
    assert_eq!(
        page.iter().map(|m| m.seq).collect::<Vec<_>>(),
        (11..=16).collect::<Vec<_>>()
    );
    let (page, _) = ports.threads.messages(thread.id, 0, 3).await.unwrap();
    assert_eq!(page.len(), 3);
    assert_eq!(ports.threads.context(thread.id).await.unwrap().len(), 16);
}

pub(crate) async fn turn_numbers_only_grow(ports: Ports) {
    let (_, _, thread) = seeded(&ports).await;
    assert_eq!(ports.turns.last_turn(thread.id).await.unwrap().turn, 0);
    assert_eq!(
        ports.turns.last_turn(ThreadId::new()).await.unwrap().turn,
        0
    );
    for turn in [5, 3] {
        let write = ThreadAppend {
            turn: Some(turn),
            ..Default::default()
        };
        ports.turns.append_durably(thread.id, write).await.unwrap();
    }
    assert_eq!(ports.turns.last_turn(thread.id).await.unwrap().turn, 5);
}

pub(crate) async fn keyed_sends_learn_their_answer(ports: Ports) {
    let (_, _, thread) = seeded(&ports).await;
    let key = [9u8; 32];
    let mut record = keyed_record(1);
    let write = ThreadAppend {
        turn: Some(1),
        listed: Some(message(thread.id, Role::User, "question")),
        keyed: Some((key, record.clone())),
        ..Default::default()
    };
    ports.turns.append_durably(thread.id, write).await.unwrap();
    let read = ports
        .turns
        .admission_reads(thread.id, Some(key), false)
        .await
        .unwrap();
    assert_eq!(read.keyed.unwrap().turn, 1);
    assert!(read.tail.is_none(), "the tail only when asked for");

    record.outcome = Some(serde_json::from_value(serde_json::json!({"kind": "ok"})).unwrap());
    let answer = message(thread.id, Role::Assistant, "answer");
    let write = ThreadAppend {
        listed: Some(answer.clone()),
        keyed: Some((key, record)),
        ..Default::default()
    };
    ports.turns.append_durably(thread.id, write).await.unwrap();
    let read = ports
        .turns
        .admission_reads(thread.id, Some(key), false)
        .await
        .unwrap();
    let outcome = read.keyed.unwrap().outcome.unwrap();
    assert_eq!(outcome.message_id, Some(answer.id));
    assert_eq!(outcome.answer_seq, Some(2));
    let other = ports
        .turns
        .admission_reads(thread.id, Some([1; 32]), false)
        .await
        .unwrap();
    assert!(other.keyed.is_none());
}

pub(crate) async fn context_tail_starts_at_the_last_answer(ports: Ports) {
    let (_, _, thread) = seeded(&ports).await;
    let append = |context: Vec<ContextMessage>| {
        let turns = Arc::clone(&ports.turns);
        async move {
            let write = ThreadAppend {
                context,
                ..Default::default()
            };
            turns.append_durably(thread.id, write).await.unwrap();
        }
    };
    append(vec![ContextMessage::text(ContextRole::User, "first")]).await;
    let tail = ports
        .turns
        .admission_reads(thread.id, None, true)
        .await
        .unwrap()
        .tail
        .unwrap();
    assert_eq!(tail.len(), 1, "no answer yet: all of it");
    append(vec![
        ContextMessage::text(ContextRole::Assistant, "answer"),
        ContextMessage::tool_result("call-1", "result"),
    ])
    .await;
    append(vec![ContextMessage::text(ContextRole::User, "second")]).await;
    let tail = ports
        .turns
        .admission_reads(thread.id, None, true)
        .await
        .unwrap()
        .tail
        .unwrap();
    let contents: Vec<&str> = tail.iter().map(|e| e.content.as_str()).collect();
    assert_eq!(contents, ["answer", "result", "second"]);
    let all = ports.threads.context(thread.id).await.unwrap();
    assert_eq!(all.len(), 4);
    assert_eq!(all[0].content, "first");
}

pub(crate) async fn usage_is_unique_in_time_and_linked(ports: Ports) {
    let (org, agent, thread) = seeded(&ports).await;
    let at = Utc::now();
    let mut stored = Vec::new();
    for _ in 0..3 {
        stored.push(
            ports
                .turns
                .record_usage(usage(org, agent.id, thread.id, at))
                .await
                .unwrap(),
        );
    }
    let mut instants: Vec<_> = stored.iter().map(|r| r.created_at).collect();
    instants.dedup();
    assert_eq!(instants.len(), 3, "one instant each: {instants:?}");
    let answer = message(thread.id, Role::Assistant, "answer");
    let write = ThreadAppend {
        listed: Some(answer.clone()),
        billed: vec![stored[0].clone()],
        usage: Some(usage(org, agent.id, thread.id, at)),
        ..Default::default()
    };
    ports.turns.append_durably(thread.id, write).await.unwrap();

    let filter = UsageFilter {
        thread: Some(thread.id),
        agent: None,
    };
    let page = ports.threads.usage(org, filter, None, 10).await.unwrap();
    assert_eq!(page.items.len(), 4);
    assert!(page.next_cursor.is_none());
    let linked: Vec<_> = page
        .items
        .iter()
        .filter(|r| r.message_id == Some(answer.id))
        .collect();
    assert_eq!(linked.len(), 2, "the billed record and the answer's own");
    assert!(
        page.items
            .windows(2)
            .all(|w| w[0].created_at > w[1].created_at),
        "newest first"
    );

    let first = ports.threads.usage(org, filter, None, 3).await.unwrap();
    let cursor = first.next_cursor.expect("a fourth record follows");
    let rest = ports
        .threads
        .usage(org, filter, Some(cursor), 3)
        .await
        .unwrap();
    assert_eq!(rest.items.len(), 1);
    assert!(rest.next_cursor.is_none());
    let by_agent = UsageFilter {
        thread: None,
        agent: Some(AgentId::new()),
    };
    assert!(
        ports
            .threads
            .usage(org, by_agent, None, 10)
            .await
            .unwrap()
            .items
            .is_empty()
    );
    assert!(
        ports
            .threads
            .usage(OrgId::new(), UsageFilter::default(), None, 10)
            .await
            .unwrap()
            .items
            .is_empty()
    );
}

pub(crate) async fn creation_instants_are_unique_in_the_org(ports: Ports) {
    let (org, agent, _) = seeded(&ports).await;
    let at = Utc::now();
    let a = ports
        .threads
        .create_thread(thread(org, agent.id, at))
        .await
        .unwrap();
    let b = ports
        .threads
        .create_thread(thread(org, agent.id, at))
        .await
        .unwrap();
    assert_ne!(a.created_at, b.created_at);
    assert_eq!(ports.threads.thread(org, b.id).await.unwrap().unwrap(), b);
}

/// U+0000 in a message and a context entry is kept as written (a tool's
/// output may carry it; PostgreSQL's `jsonb` refused it).
pub(crate) async fn text_with_nul_is_kept(ports: Ports) {
    let (_, _, thread) = seeded(&ports).await;
    let text = "before\u{0}after";
    ports
        .turns
        .append_durably(
            thread.id,
            ThreadAppend {
                listed: Some(message(thread.id, Role::Assistant, text)),
                context: vec![ContextMessage::text(ContextRole::Tool, text)],
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let (page, _) = ports.threads.messages(thread.id, 0, 10).await.unwrap();
    assert_eq!(page[0].content, text);
    assert_eq!(
        ports.threads.context(thread.id).await.unwrap()[0].content,
        text
    );
}
