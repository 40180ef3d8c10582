//! One store test suite, run on a temporary sled store and on a temporary
//! PostgreSQL (`scale.md` §2): each case speaks only to the ports
//! (`ThreadStore`, `AgentRecords`, `ThreadRecords`), so a kind kept
//! differently by the two stores fails here. Each case gets a store of
//! its own: a fresh sled directory, or a fresh database of one cluster.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use confer::secrets::SecretBox;
use confer::store::pg::{Database, PgSettings, PgStore, meta};
use confer::store::port::{AgentRecords, ThreadRecords};
use confer::store::{Store, UsageFilter};
use confer::tools::integrations::connection::{self, TlsSettings};
use confer_actors::{
    Agent, AgentId, CompactionConfig, ContextMessage, ContextRole, CredentialConfig,
    IdempotencyRecord, Message, MessageId, OrgId, Role, Thread, ThreadAppend, ThreadId,
    ThreadStore, UsageRecord,
};

use crate::postgres::Postgres;

/// The ports of one store under test.
struct Ports {
    turns: Arc<dyn ThreadStore>,
    agents: Arc<dyn AgentRecords>,
    threads: Arc<dyn ThreadRecords>,
}

/// A case of the suite.
type Case = fn(Ports) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

/// Every case, by name.
fn cases() -> Vec<(&'static str, Case)> {
    vec![
        ("records_stay_in_their_org", |p| {
            Box::pin(records_stay_in_their_org(p))
        }),
        ("appends_number_densely", |p| {
            Box::pin(appends_number_densely(p))
        }),
        ("turn_numbers_only_grow", |p| {
            Box::pin(turn_numbers_only_grow(p))
        }),
        ("keyed_sends_learn_their_answer", |p| {
            Box::pin(keyed_sends_learn_their_answer(p))
        }),
        ("context_tail_starts_at_the_last_answer", |p| {
            Box::pin(context_tail_starts_at_the_last_answer(p))
        }),
        ("usage_is_unique_in_time_and_linked", |p| {
            Box::pin(usage_is_unique_in_time_and_linked(p))
        }),
        ("creation_instants_are_unique_in_the_org", |p| {
            Box::pin(creation_instants_are_unique_in_the_org(p))
        }),
    ]
}

fn secrets() -> Arc<SecretBox> {
    use base64::Engine as _;
    let key =
        secrecy::SecretString::from(base64::engine::general_purpose::STANDARD.encode([7u8; 32]));
    let dir = tempfile::tempdir().unwrap();
    Arc::new(SecretBox::load(Some(&key), None, None, dir.path()).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_suite_passes_on_sled() {
    for (name, case) in cases() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_with(dir.path(), secrets()).unwrap();
        let records = Arc::new(store.records());
        let ports = Ports {
            turns: store.as_port(),
            agents: records.clone(),
            threads: records,
        };
        eprintln!("sled: {name}");
        case(ports).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_suite_passes_on_postgres() {
    let postgres = Postgres::start().await;
    for (index, (name, case)) in cases().into_iter().enumerate() {
        let url = postgres.database(&format!("conformance_{index}")).await;
        let store = pg_store(&url).await;
        let ports = Ports {
            turns: Arc::new(store.clone()),
            agents: Arc::new(store.clone()),
            threads: Arc::new(store),
        };
        eprintln!("postgres: {name}");
        case(ports).await;
    }
}

async fn pg_store(url: &str) -> PgStore {
    let settings = PgSettings {
        target: connection::parse_operator(url).unwrap(),
        pool_size: 8,
    };
    let database = Database::open(&settings, TlsSettings::new(None).unwrap())
        .await
        .unwrap();
    let secrets = secrets();
    meta::prepare(&database, &secrets).await.unwrap();
    PgStore::new(database, secrets)
}

/// A secret sealed by the PostgreSQL store is not in its row in clear.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_keeps_secrets_sealed() {
    let postgres = Postgres::start().await;
    let url = postgres.database("sealed").await;
    let store = pg_store(&url).await;
    let org = OrgId::new();
    let agent = agent(org);
    store.put_agent(agent.clone()).await.unwrap();
    let config = CredentialConfig {
        enabled: true,
        resolver_url: "https://resolver.example/keys".into(),
        timeout_ms: 2_000,
        signing_secret: Some("signing-secret-that-must-not-show".into()),
    };
    store
        .put_credentials(org, agent.id, config.clone())
        .await
        .unwrap();
    let raw: String = postgres
        .admin_of("sealed")
        .await
        .query_one("SELECT body::text FROM agent_configs", &[])
        .await
        .unwrap()
        .get(0);
    assert!(!raw.contains("signing-secret-that-must-not-show"), "{raw}");
    assert_eq!(store.credentials(org, agent.id).await.unwrap(), config);
}

fn agent(org: OrgId) -> Agent {
    let now = Utc::now();
    Agent {
        id: AgentId::new(),
        org_id: org,
        name: "conformance".into(),
        description: String::new(),
        stable_preamble: "Answer.".into(),
        default_model: "builtin/echo".into(),
        tool_profiles: None,
        default_profile: None,
        runtime_provider: Default::default(),
        project_id: None,
        created_at: now,
        updated_at: now,
        deleted_at: None,
    }
}

fn thread(org: OrgId, agent: AgentId, at: DateTime<Utc>) -> Thread {
    Thread {
        id: ThreadId::new(),
        org_id: org,
        agent_id: agent,
        title: Some("a thread".into()),
        kind: Default::default(),
        active_profile: None,
        metadata: Default::default(),
        system_prompt_overlay: None,
        resource_bindings: Vec::new(),
        created_by: "user-1".into(),
        publication_id: None,
        invite_generation: 0,
        origin: None,
        delegation: None,
        project_id: None,
        created_at: at,
        updated_at: at,
    }
}

fn message(thread: ThreadId, role: Role, content: &str) -> Message {
    Message {
        id: MessageId::new(),
        thread_id: thread,
        seq: 0,
        role,
        content: content.into(),
        sender_name: None,
        sender_id: None,
        created_at: Utc::now(),
        citations: Vec::new(),
    }
}

fn usage(org: OrgId, agent: AgentId, thread: ThreadId, at: DateTime<Utc>) -> UsageRecord {
    serde_json::from_value(serde_json::json!({
        "id": uuid::Uuid::new_v4(),
        "org_id": org,
        "agent_id": agent,
        "thread_id": thread,
        "message_id": null,
        "model": "builtin/echo",
        "provider": "builtin",
        "key_source": "platform",
        "input_tokens": 3,
        "output_tokens": 5,
        "metadata": {},
        "stopped": false,
        "created_at": at,
    }))
    .unwrap()
}

/// An org with an agent and a thread.
async fn seeded(ports: &Ports) -> (OrgId, Agent, Thread) {
    let org = OrgId::new();
    let agent = agent(org);
    ports.agents.put_agent(agent.clone()).await.unwrap();
    let thread = ports
        .threads
        .create_thread(thread(org, agent.id, Utc::now()))
        .await
        .unwrap();
    (org, agent, thread)
}

async fn records_stay_in_their_org(ports: Ports) {
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

async fn appends_number_densely(ports: Ports) {
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

async fn turn_numbers_only_grow(ports: Ports) {
    let (_, _, thread) = seeded(&ports).await;
    assert_eq!(ports.turns.last_turn(thread.id).await.unwrap(), 0);
    assert_eq!(ports.turns.last_turn(ThreadId::new()).await.unwrap(), 0);
    for turn in [5, 3] {
        let write = ThreadAppend {
            turn: Some(turn),
            ..Default::default()
        };
        ports.turns.append_durably(thread.id, write).await.unwrap();
    }
    assert_eq!(ports.turns.last_turn(thread.id).await.unwrap(), 5);
}

fn keyed_record(turn: u64) -> IdempotencyRecord {
    let now = Utc::now();
    IdempotencyRecord {
        request: "ab".repeat(32),
        turn,
        created_at: now,
        started_at: now,
        model: "builtin/echo".into(),
        user_message_id: None,
        outcome: None,
    }
}

async fn keyed_sends_learn_their_answer(ports: Ports) {
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

async fn context_tail_starts_at_the_last_answer(ports: Ports) {
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

async fn usage_is_unique_in_time_and_linked(ports: Ports) {
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

async fn creation_instants_are_unique_in_the_org(ports: Ports) {
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
